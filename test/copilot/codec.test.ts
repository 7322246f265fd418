import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, copilot, detectFormat } from '../../src/all';
import { COPILOT_MAX_LINE_BYTES, copilotEnvelope, copilotTimestampMs } from '../../src/formats/copilot/wire';
import { IsoReader } from '../../src/iso';
import type { JsonObject } from '../../src/json';
import { loadFixture } from '../../src/node/fixtures';
import { fixtureSuite } from '../agent-suite';
import { FUZZ_RUNS } from '../runs';

fixtureSuite(copilot, 'copilot', {
  'missing-terminal': ['warning order @5', 'warning order @5'],
});

const env = (type: string, data: object, extra = '') =>
  `{"id":"e-${type}","parentId":null,"timestamp":"2026-01-15T10:00:00.000Z","type":"${type}","data":${JSON.stringify(data)}${extra}}`;

describe('copilot decoder', () => {
  test('a number spelled as JSON.stringify would not (1.0) comes back as written: the line is kept', () => {
    const text = `${env('assistant.usage', { model: 'gpt-5', inputTokens: 1 }).replace('"inputTokens":1', '"inputTokens":1,"cost":1.0')}\n`;
    expect(text).toContain('"cost":1.0');
    expect(copilot.stringify(copilot.parse(text).events)).toBe(text);
  });

  test('a run is user.message … session.idle, with the answer and the calls summed', () => {
    const { events } = copilot.parse(loadFixture('copilot', 'tools').bytes);
    const end = events.at(-1) as Extract<AgentEvent, { type: 'run.end' }>;
    expect(end).toMatchObject({
      type: 'run.end',
      status: 'completed',
      answer: 'Fixed: `total()` applied tax twice — all 12 tests pass now.',
      usage: { input: 18250 + 18702, output: 41 + 22, cacheRead: 17900 + 18220, cacheWrite: 320 },
    });
    const calls = events.filter((e) => e.type === 'usage');
    expect(calls.map((e) => e.type === 'usage' && e.usage)).toEqual([
      expect.objectContaining({ scope: 'call', key: 'msg_01AbC', model: 'claude-sonnet-4.5' }),
      expect.objectContaining({ scope: 'call', key: 'msg_01DeF' }),
    ]);
  });

  test('cost is a billing multiplier, not US dollars: never costUsd', () => {
    const { events } = copilot.parse(loadFixture('copilot', 'tools').bytes);
    for (const e of events) if (e.type === 'usage') expect(e.usage.costUsd).toBeUndefined();
  });

  test("a subagent's events carry its agentId as lane; its start and end do not", () => {
    const { events } = copilot.parse(loadFixture('copilot', 'subagent').bytes);
    const start = events.find((e) => e.type === 'child.start')!;
    expect(start).toMatchObject({ child: 'agent-7f3e', call: 'call_task_1', name: 'code-review' });
    expect(start.lane).toBeUndefined();
    expect(events.filter((e) => e.lane === 'agent-7f3e').map((e) => e.type)).toContain('tool.start');
    const failed = events.filter((e) => e.type === 'child.end')[1];
    expect(failed).toMatchObject({
      child: 'agent-91c0',
      status: 'failed',
      result: expect.stringContaining('503'),
    });
  });

  test('session.error then session.idle fails the run; abort then idle cancels it', () => {
    const ends = copilot
      .parse(loadFixture('copilot', 'error').bytes)
      .events.filter((e) => e.type === 'run.end');
    expect(ends).toMatchObject([
      { status: 'failed', error: expect.stringContaining('rate-limited') },
      { status: 'cancelled' },
    ]);
  });

  test('the on-disk order (type first) is kept, and shutdown totals become a thread-scope usage', () => {
    const fx = loadFixture('copilot', 'usage');
    const { events } = copilot.parse(fx.bytes);
    expect(copilotEnvelope(events[0]!.provenance?.hints?.record as JsonObject)?.layout).toBe('disk');
    const total = events.find((e) => e.type === 'usage' && e.usage.scope === 'thread');
    expect(total).toMatchObject({
      usage: { input: 18250 + 410, output: 57 + 12, byModel: { 'claude-haiku-4.5': { input: 410 } } },
    });
    // Edited, a disk-order record is written from the model in the disk order.
    const i = events.findIndex((e) => e.type === 'message.end');
    const edited = events.map((e, j) =>
      j === i - 1 && e.type === 'text.delta' ? { ...e, text: 'Edited.' } : e,
    );
    const line = copilot.stringify(edited).split('\n')[3]!;
    expect(line.startsWith('{"type":"assistant.message","data":{')).toBe(true);
    expect(JSON.parse(line).data.content).toBe('Edited.');
  });

  test('a stream ending inside a run ends it incomplete (synthetic)', () => {
    const end = copilot.parse(loadFixture('copilot', 'missing-terminal').bytes).events.at(-1)!;
    expect(end).toMatchObject({ type: 'run.end', status: 'incomplete', provenance: { synthetic: true } });
  });

  test('unknown types and envelope fields of their own are kept; bad envelopes are reported and kept', () => {
    const text = `${env('session.future', { a: 1 }, ',"traceId":"t"')}\n${env('user.message', { content: 5 })}\n{"type":"x","data":{}}\n`;
    const { events, diagnostics } = copilot.parse(text);
    expect(events.map((e) => e.type)).toEqual(['unknown', 'unknown', 'unknown']);
    expect(diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['invalid_record', 2],
      ['invalid_record', 3],
    ]);
    expect(copilot.stringify(events)).toBe(text);
  });

  test('lines up to 16 MiB are read by default', () => {
    expect(COPILOT_MAX_LINE_BYTES).toBe(16 * 1024 * 1024);
    const big = 'y'.repeat(3 * 1024 * 1024);
    const line = env('tool.execution_complete', { toolCallId: 'c', success: true, result: { content: big } });
    const { events, diagnostics } = copilot.parse(`${line}\n`);
    expect(diagnostics).toEqual([]);
    expect(events[0]).toMatchObject({ type: 'tool.end', text: big });
  });
});

describe('copilot writer', () => {
  test('events built by hand: a session start, a turn, ids chained by parentId, deterministic', () => {
    let n = 0;
    const text = copilot.stringify(
      [
        { type: 'run.start', input: 'hi', ts: 1767225600000 },
        { type: 'text.delta', text: 'Hello', ts: 1767225600001 },
        {
          type: 'round.end',
          message: 'Hello',
          usage: { input: 10, output: 2 },
          model: 'gpt-5',
          ts: 1767225600002,
        },
        { type: 'run.end', status: 'completed', ts: 1767225600003 },
      ],
      { idSource: () => `id-${++n}`, clock: () => 1767225600000, session: 's-1' },
    );
    const records = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((r) => r.type)).toEqual([
      'session.start',
      'user.message',
      'assistant.turn_start',
      'assistant.message_delta',
      'assistant.message',
      'assistant.usage',
      'assistant.turn_end',
      'session.idle',
    ]);
    expect(records.slice(1).every((r, i) => r.parentId === records[i].id)).toBe(true);
    expect(records[0].parentId).toBeNull();
    expect(records[5].data).toEqual({ model: 'gpt-5', inputTokens: 10, outputTokens: 2 });
    expect(copilot.check(text)).toEqual([]);
    const back = copilot.parse(text).events;
    expect(back.at(-1)).toMatchObject({ type: 'run.end', status: 'completed', answer: 'Hello' });
    expect(copilot.stringify(back)).toBe(text);
  });

  test('costUsd and what Copilot has no event for are losses', () => {
    const fields: string[] = [];
    copilot.stringify(
      [
        { type: 'usage', usage: { input: 1, costUsd: 0.5 } },
        { type: 'plan', items: [] },
      ],
      { onDiagnostic: (d) => fields.push(d.field ?? '') },
    );
    expect(fields).toEqual(['usage.costUsd', 'plan']);
  });
});

// A field taken out of an event that kept its line (a redaction by deletion) is not written back
// from the line, nor are the kept record's copies of it.
describe('copilot writer: deleted fields', () => {
  const without = (events: AgentEvent[], i: number, ...keys: string[]) =>
    copilot.stringify(
      events.map((e, j) =>
        j === i
          ? (Object.fromEntries(Object.entries(e).filter(([k]) => !keys.includes(k))) as AgentEvent)
          : e,
      ),
    );

  test("a session start's directory leaves its context, with the git root that spelled it", () => {
    const { events } = copilot.parse(loadFixture('copilot', 'error').bytes);
    const first = without(events, 0, 'cwd', 'producer', 'model').split('\n')[0]!;
    expect(first).not.toMatch(/home\/dev\/shop|copilot-agent|claude-sonnet/);
    expect(JSON.parse(first).data.context).toEqual({ branch: 'main', repository: 'acme/shop' });
  });

  test("a subagent's deleted name leaves its start and its end; a deleted status, the kept error", () => {
    const { events } = copilot.parse(loadFixture('copilot', 'subagent').bytes);
    const i = events.findIndex((e) => e.type === 'child.start' && e.name === 'explore');
    const out = without(events, i, 'name', 'task');
    // (The spawning call's arguments name the agent type too: another event's.)
    const records = out.split('\n').filter((l) => l.includes('"call_task_2"') && l.includes('"subagent.'));
    expect(records).toHaveLength(2);
    for (const r of records) expect(r).not.toMatch(/"explore"|Searches the codebase/);
    const end = events.findIndex((e) => e.type === 'child.end' && e.status === 'failed');
    expect(without(events, end, 'status', 'result')).not.toContain('503 Service Unavailable');
  });
});

describe('copilot detection', () => {
  test.each([
    [
      env('session.start', { sessionId: 's', version: 1, producer: 'copilot-agent', copilotVersion: '1' }),
      'certain',
    ],
    [
      '{"type":"session.start","data":{"sessionId":"s","copilotVersion":"1"},"id":"a","timestamp":"t","parentId":null}',
      'certain',
    ],
    [env('assistant.turn_start', { turnId: '0' }), 'likely'],
  ])('%s', (line, confidence) => {
    expect(detectFormat(line)).toMatchObject({ format: 'copilot', confidence });
  });
});

describe('copilotTimestampMs', () => {
  test('reads what Date.parse reads, for every ms a date can hold and for other spellings', () => {
    fc.assert(
      // One reader over a sequence: it remembers the minute of the last timestamp it read.
      fc.property(fc.array(fc.integer({ min: -8.64e15, max: 8.64e15 }), { maxLength: 8 }), (times) => {
        const reader = new IsoReader();
        for (const ms of [...times, ...times.map((t) => t + 1)].filter((t) => Math.abs(t) <= 8.64e15)) {
          const text = new Date(ms).toISOString();
          expect(copilotTimestampMs(reader, text)).toBe(Date.parse(text));
        }
      }),
      { numRuns: FUZZ_RUNS },
    );
    for (const text of [
      '2026-02-30T10:00:00.000Z',
      '2026-13-01T10:00:00.000Z',
      '2026-01-15T10:00:00.123456Z',
      '2026-01-15T10:00:00Z',
      '2026-01-15T25:00:00.000Z',
      '2026-01-15x10:00:00.000Z',
      'not a date',
    ]) {
      const parsed = Date.parse(text);
      expect(copilotTimestampMs(new IsoReader(), text)).toBe(Number.isFinite(parsed) ? parsed : undefined);
    }
  });
});
