import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import { AMP_JOIN_SHORTCUT, AMP_QUIET_SHORTCUT, AMP_TEMPLATES } from '../../src/formats/amp/encode';
import { FUZZ_RUNS } from '../runs';
import { type Written, writeAmp } from './write-events';

// The Amp writer spells an assistant line built from the model (another format's events, or
// events built by hand) from templates instead of `JSON.stringify` of the record
// (docs/performance.md, "Amp writer, round five"). These properties hold the two equal on random
// event streams, with the join shortcut on and off: the same bytes after every event, the same
// diagnostics, the same error when a value cannot be written.

const text: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 6 }) },
  {
    weight: 3,
    arbitrary: fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0001', 'é', 'a', '😀'), maxLength: 4 }),
  },
  // halves of a surrogate pair, so that a pair can be split between two deltas
  { weight: 2, arbitrary: fc.constantFrom('\ud83d', '\ude00', 'a\ud83d', '\ude00b', '\u2028') },
  { weight: 1, arbitrary: fc.constantFrom(7, null, undefined, { t: 1 }) },
);
const lane = fc.constantFrom<unknown>(undefined, undefined, undefined, 'call_1', 'call_2', '', 'c"\\', 5);
const format = fc.constantFrom<'hep' | 'amp' | 'amp-no-line' | undefined>(
  'hep',
  'hep',
  'hep',
  undefined,
  'amp',
  'amp-no-line',
);
const count = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: -5, max: 2 ** 40 }) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(undefined, -0, 1.5e300, -1.7e308, 0.1) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('12', Number.NaN, Number.POSITIVE_INFINITY, null) },
);
const usage = fc.record(
  {
    input: count,
    output: count,
    cacheRead: count,
    cacheWrite: count,
    costUsd: fc.constantFrom(undefined, 0.5),
  },
  { requiredKeys: [] },
);
const stopReason = fc.constantFrom<unknown>(undefined, 'end_turn', 'tool_use', 'stop"\n', 3, null);
const args = fc.oneof(
  // a BigInt: JSON.stringify throws, and the general path names the field
  fc.constantFrom<unknown>(
    undefined,
    {},
    { cmd: 'ls "x"' },
    [1, 'a'],
    'plain',
    { deep: { a: [null, true] } },
    { n: 1n },
  ),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 3 }),
);

const event: fc.Arbitrary<AgentEvent> = fc
  .tuple(
    fc.constantFrom(
      'text',
      'text',
      'text',
      'text',
      'text-extra',
      'reasoning',
      'redacted',
      'tool.start',
      'tool.end',
      'round.end',
      'round.end',
      'usage',
      'child.start',
      'message.start',
      'message.start-extra',
      'run.start',
      'run.end',
      'tool.output',
      'user.message',
      'run.start-input',
    ),
    fc.tuple(text, lane, format, fc.nat({ max: 3 })),
    fc.tuple(usage, stopReason, args, fc.constantFrom<unknown>('s-1', 's-1', 's"2', undefined)),
  )
  .map(([kind, [t, l, f, line], [u, stop, a, session]]) => {
    const e: Record<string, unknown> = (() => {
      switch (kind) {
        case 'text':
          return { type: 'text.delta', text: t, round: 1 };
        case 'text-extra':
          return { type: 'text.delta', text: t, message: 'm1', seq: 3 };
        case 'reasoning':
          return { type: 'reasoning.delta', text: t, signature: typeof t === 'string' ? t : undefined };
        case 'redacted':
          return { type: 'reasoning.delta', text: '', redacted: 'xyz' };
        case 'tool.start':
          return { type: 'tool.start', call: 'c1', name: 'Bash', args: a };
        case 'tool.end':
          return { type: 'tool.end', call: 'c1', ok: line !== 2, text: t };
        case 'round.end':
          return { type: 'round.end', message: 'm', stopReason: stop, usage: line === 0 ? undefined : u };
        case 'usage':
          return { type: 'usage', usage: { ...u, scope: line === 3 ? 'thread' : 'call', final: line !== 1 } };
        case 'child.start':
          return { type: 'child.start', child: 'call_2', call: 'toolu_9', name: 'Task' };
        case 'message.start':
          return { type: 'message.start', role: 'assistant' };
        case 'message.start-extra':
          return { type: 'message.start', role: 'assistant', message: 'm1' };
        case 'run.start':
          return { type: 'run.start' };
        case 'run.end':
          return { type: 'run.end', status: 'completed', answer: t, usage: u };
        case 'user.message':
          return { type: 'user.message', text: t };
        case 'run.start-input':
          return { type: 'run.start', input: t };
        default:
          return { type: 'tool.output', call: 'c1', text: t };
      }
    })();
    if (session !== undefined) e.session = session;
    if (l !== undefined) e.lane = l;
    // Amp's own events without a line join another format's gathered message; with a kept block,
    // theirs has fields of its own.
    if (f === 'amp-no-line')
      e.provenance =
        line < 2
          ? { format: 'amp' }
          : {
              format: 'amp',
              hints: {
                block:
                  kind === 'tool.end' && line === 3
                    ? {
                        type: 'tool_result',
                        tool_use_id: 'k',
                        content: [{ type: 'text', text: 'k' }],
                        extra: 1,
                      }
                    : { type: line === 2 ? 'text' : 'tool_use', text: 'k', id: 'k', extra: 1 },
              },
            };
    else if (f !== undefined) e.provenance = { format: f, line, offset: line * 10 };
    return e as unknown as AgentEvent;
  });

function write(events: AgentEvent[], templates: boolean, join: boolean, quiet = true): Written {
  AMP_TEMPLATES.enabled = templates;
  AMP_JOIN_SHORTCUT.enabled = join;
  AMP_QUIET_SHORTCUT.enabled = quiet;
  const out = writeAmp(events, { idSource: () => 'id-1' });
  AMP_TEMPLATES.enabled = true;
  AMP_JOIN_SHORTCUT.enabled = true;
  AMP_QUIET_SHORTCUT.enabled = true;
  return out;
}

// JSON copies would drop the `undefined`s and non-JSON values the streams hold on purpose: each
// run gets its own structured clone instead (the writer appends to the blocks it builds only).
const copy = (events: AgentEvent[]): AgentEvent[] => structuredClone(events);

describe('Amp writer: the assistant-line template against the general path', () => {
  afterEach(() => {
    AMP_TEMPLATES.enabled = true;
    AMP_JOIN_SHORTCUT.enabled = true;
    AMP_QUIET_SHORTCUT.enabled = true;
  });

  test('the same bytes after every event, the same losses and errors', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), fc.boolean(), (events, join) => {
        const general = write(copy(events), false, join);
        const template = write(copy(events), true, join);
        expect(template.text).toBe(general.text);
        expect(template.diagnostics).toEqual(general.diagnostics);
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  // Another format's `message.start` and `tool.output` skip the general path's lookups and
  // dispatch (`quietEvent`, docs/performance.md "Amp writer, round twelve"): the same bytes after
  // every event and the same losses (said once, at the same event) with the shortcut on and off,
  // with templates and the join on and off, among Amp events, hand-built ones and lanes.
  test('quiet events: the shortcut writes what the general path writes', () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 30 }),
        fc.boolean(),
        fc.boolean(),
        (events, templates, join) => {
          const general = write(copy(events), templates, join, false);
          const quiet = write(copy(events), templates, join, true);
          expect(quiet.text).toBe(general.text);
          expect(quiet.diagnostics).toEqual(general.diagnostics);
        },
      ),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('a count with its own toJSON (which sees its key) takes the general path', () => {
    const events = (): AgentEvent[] => [
      { type: 'text.delta', text: 'a', session: 's' },
      {
        type: 'round.end',
        message: 'm',
        usage: { input: 3, output: { toJSON: (key: string) => `key ${key}` } as unknown as number },
        session: 's',
      },
    ];
    const out = write(events(), true, true).text;
    expect(out).toBe(write(events(), false, true).text);
    expect(out).toContain('"output_tokens":"key output_tokens"');
  });

  test('a block with its own toJSON (which sees its index inside the record) takes the general path', () => {
    const toJSON = (key: string) => ({ type: 'text', text: `key ${key}` });
    const events = (): AgentEvent[] => [
      { type: 'tool.end', call: 'c2', ok: false, text: 'x', session: 's' },
      {
        type: 'tool.end',
        call: 'c1',
        ok: true,
        text: 'out',
        session: 's',
        provenance: { format: 'amp', hints: { block: { type: 'tool_result', toJSON } } },
      } as unknown as AgentEvent,
      { type: 'run.end', status: 'completed', session: 's' },
    ];
    const out = write(events(), true, true).text;
    expect(out).toBe(write(events(), false, true).text);
    expect(out).toContain(
      '"content":[{"type":"tool_result","tool_use_id":"c2","content":"x","is_error":true},{"type":"text","text":"key 1"}]',
    );
  });

  test('a pair split between two deltas, an escape, usage and a lane: spelled as JSON.stringify does', () => {
    const hep = { format: 'hep' as const, line: 1, offset: 0 };
    const events: AgentEvent[] = [
      { type: 'child.start', child: 'sub', call: 'toolu_1', name: 'Task', provenance: hep },
      { type: 'text.delta', text: 'a "q" \ud83d', lane: 'sub', session: 's', provenance: hep },
      { type: 'text.delta', text: '\ude00\n', lane: 'sub', session: 's', provenance: hep },
      {
        type: 'tool.start',
        call: 'c',
        name: 'Bash',
        args: { cmd: 'ls' },
        lane: 'sub',
        session: 's',
        provenance: hep,
      },
      {
        type: 'round.end',
        message: 'm',
        stopReason: 'tool_use',
        usage: { input: 10, output: 2, cacheRead: 3 },
        lane: 'sub',
        session: 's',
        provenance: hep,
      },
    ];
    const out = write(copy(events), true, true).text;
    expect(out).toBe(write(copy(events), false, true).text);
    expect(out).toContain(
      '{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"a \\"q\\" 😀\\n"},{"type":"tool_use","id":"c","name":"Bash","input":{"cmd":"ls"}}],"stop_reason":"tool_use","usage":{"input_tokens":7,"cache_read_input_tokens":3,"output_tokens":2}},"parent_tool_use_id":"toolu_1","session_id":"s"}\n',
    );
  });
});
