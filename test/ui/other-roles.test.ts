import { describe, expect, test } from 'vitest';
import { agui } from '../../src/all';

// AG-UI text messages of another role than the assistant's stay `unknown` records, start, content
// and end, while the assistant's messages around them map: the decoder's `otherRoles` set (read
// only when it is not empty) decides it.
const sse = (records: object[]): string => records.map((r) => `data: ${JSON.stringify(r)}\n\n`).join('');

describe('AG-UI messages of other roles', () => {
  test('a user message between assistant messages stays unknown, whole', () => {
    const text = sse([
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'TEXT_MESSAGE_START', messageId: 'a1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'hi' },
      { type: 'TEXT_MESSAGE_END', messageId: 'a1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'u1', role: 'user' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'u1', delta: 'question' },
      { type: 'TEXT_MESSAGE_END', messageId: 'u1' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'again' },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
    ]);
    const types = agui
      .parse(text)
      .events.map((e) => (e.type === 'unknown' ? `unknown:${e.recordType}` : e.type));
    expect(types).toEqual([
      'run.start',
      'message.start',
      'text.delta',
      'message.end',
      'unknown:TEXT_MESSAGE_START',
      'unknown:TEXT_MESSAGE_CONTENT',
      'unknown:TEXT_MESSAGE_END',
      'text.delta',
      'run.end',
    ]);
  });
});
