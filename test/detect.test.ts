import { describe, expect, test } from 'vitest';
import { detectFormat } from '../src/all';

describe('detectFormat', () => {
  test.each([
    ['{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n', 'hep', 'certain'],
    ['\uFEFF\n{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n', 'hep', 'certain'],
    ['{"type":"message_delta","turn_id":1,"delta":"x"}\n', 'hep', 'likely'],
    ['{"v": 1, "type": "hello", "ts": 1.5, "sdk": "x", "pid": 1}\n', 'highbar', 'certain'],
    ['{"fn": "get_order", "args": {}, "conversation_id": "c"}\n', 'highbar', 'likely'],
    ['id: 1\nevent: token\ndata: {}\n\n', 'nativeharness', 'certain'],
    [': keep-alive\n\n', 'nativeharness', 'certain'],
    ['[{"seq":1}]', 'nativeharness', 'likely'],
    [
      '{"seq":1,"ts":1,"type":"token","workspace_id":"w","session_id":"s","turn_id":"t","payload":{}}\n',
      'nativeharness',
      'certain',
    ],
  ])('%j → %s (%s)', (input, format, confidence) => {
    expect(detectFormat(input)).toMatchObject({ format, confidence });
    expect(detectFormat(new TextEncoder().encode(input))).toMatchObject({ format, confidence });
  });

  // The reason names the record type with its article: "an agent_start frame", not "a agent_start".
  test.each([
    ['{"type":"agent_start","turn_id":1}\n', 'an agent_start frame'],
    ['{"type":"message_delta","turn_id":1,"delta":"x"}\n', 'a message_delta frame'],
    [
      '{"type":"error","timestamp":"2026-01-01T00:00:00.000Z","severity":"error","message":"m"}\n',
      'an error record',
    ],
  ])('%j: the reason is %j', (input, reason) => {
    expect(detectFormat(input)?.reason).toBe(reason);
  });

  test.each(['', '\n\n', 'hello world', '42', '{"a":1}'])('%j → undefined', (input) => {
    expect(detectFormat(input)).toBeUndefined();
  });

  // A log's `#` comments, a wrapper's warning, `npx` noise: the first JSON object line decides,
  // never as certain as a first line would.
  test.each([
    ['# Codex 0.157.1 capture\n# scrubbed\n{"type":"thread.started","thread_id":"t"}\n', 'codex', 'likely'],
    [
      'Loaded cached credentials.\r\n{"type":"system","subtype":"init","session_id":"s","tools":[]}\r\n',
      'claude',
      'likely',
    ],
    ['npm warn exec x\n\n{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n', 'hep', 'likely'],
  ])('%j → %s (%s) after lines that are not JSON', (input, format, confidence) => {
    const found = detectFormat(input);
    expect(found).toMatchObject({ format, confidence });
    expect(found?.reason).toMatch(/after lines that are not JSON$/);
    expect(detectFormat(new TextEncoder().encode(input))).toEqual(found);
  });

  test.each([
    // No rule knows the object: unknown, not a guess.
    'warning\n{"a":1}\n',
    // The first object-looking line is not JSON: nothing to go by, even with a known record after it.
    'warning\n{"type": \n{"type":"thread.started","thread_id":"t"}\n',
    // Past the lines looked through.
    `${'noise\n'.repeat(64)}{"type":"thread.started","thread_id":"t"}\n`,
  ])('%j → undefined after lines that are not JSON', (input) => {
    expect(detectFormat(input)).toBeUndefined();
  });

  test('a first line longer than the detection window still detects a HEP header', () => {
    const line = `{"type":"hep_header","hep":"v1","fah":"1","session":"${'s'.repeat(70_000)}"}`;
    expect(detectFormat(line)).toMatchObject({ format: 'hep' });
  });
});
