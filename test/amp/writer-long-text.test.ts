import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import { AMP_TEMPLATES } from '../../src/formats/amp/encode';
import { FUZZ_RUNS } from '../runs';
import { type Written, writeAmp } from './write-events';

// The Amp writer's templates spell another format's joined text and tool results with `jsonText`
// (a long string's quotes, backslashes and line feeds replaced by native searches), and its
// `tool_use` and `tool_result` blocks from their fields (docs/performance.md, "Round twenty-six").
// These properties hold the templates equal to the general path (`JSON.stringify` of the record)
// on streams of long text, tool calls with inputs of every kind and kept blocks: the same bytes
// after every event, the same losses, the same error where a value cannot be written.

const PAD = 'a line of program output, '.repeat(3);
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 3, arbitrary: fc.constantFrom('"', '\\', '\n', '"q"\n', '\t', '\r', '\u0001', '\u2028') },
  { weight: 1, arbitrary: fc.constantFrom('\ud83d', '\ude00', '😀', 'é') },
  { weight: 2, arbitrary: fc.constant(PAD) },
);
const text: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.array(piece, { maxLength: 8 }).map((xs) => xs.join('')) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(7, null, undefined, { t: 1 }) },
);
const input = fc.constantFrom<unknown>(
  undefined,
  {},
  { cmd: 'ls "x"\n' },
  [1, 'a'],
  'plain "q"',
  7,
  true,
  null,
  Number.NaN,
  { deep: { a: [null, true] } },
  { n: 1n },
  { toJSON: (key: string) => `key ${key}` },
  new Number(5),
);
const call = fc.constantFrom<unknown>('c1', 'c"2', 'toolu_\n', 5);
const lane = fc.constantFrom<unknown>(undefined, undefined, undefined, 'call_1', 'c"\\');

const event: fc.Arbitrary<AgentEvent> = fc
  .tuple(
    fc.constantFrom(
      'text',
      'text',
      'text',
      'tool.start',
      'tool.end',
      'tool.end-kept',
      'round.end',
      'run.end',
    ),
    fc.tuple(text, input, call, lane, fc.boolean(), fc.constantFrom('hep', 'hep', undefined)),
  )
  .map(([kind, [t, i, c, l, ok, f]]) => {
    const e: Record<string, unknown> = (() => {
      switch (kind) {
        case 'text':
          return { type: 'text.delta', text: t };
        case 'tool.start':
          return { type: 'tool.start', call: c, name: ok ? 'Bash' : 'r"d', args: i };
        case 'tool.end':
          return { type: 'tool.end', call: c, ok, text: t };
        case 'tool.end-kept':
          // An Amp block kept on an event without a line: the writer's block has its fields too.
          return {
            type: 'tool.end',
            call: c,
            ok,
            text: t,
            provenance: {
              format: 'amp',
              hints: { block: { type: 'tool_result', tool_use_id: 'k', extra: 1 } },
            },
          };
        case 'round.end':
          return { type: 'round.end', message: 'm', stopReason: 'tool_use', usage: { input: 9, output: 2 } };
        default:
          return { type: 'run.end', status: 'completed', answer: t };
      }
    })();
    e.session = 's-1';
    if (l !== undefined) e.lane = l;
    if (f !== undefined && e.provenance === undefined) e.provenance = { format: f, line: 1, offset: 0 };
    return e as unknown as AgentEvent;
  });

function write(events: AgentEvent[], templates: boolean): Written {
  AMP_TEMPLATES.enabled = templates;
  const out = writeAmp(events, { idSource: () => 'id-1' });
  AMP_TEMPLATES.enabled = true;
  return out;
}

// Each run gets its own structured clone (the writer appends to the blocks it builds); the
// functions and boxed numbers of some inputs do not clone, so those events are made anew.
function copy(events: AgentEvent[]): AgentEvent[] {
  return events.map((e) => ({ ...e }));
}

describe('Amp writer: long text and tool blocks, templates against the general path', () => {
  afterEach(() => {
    AMP_TEMPLATES.enabled = true;
  });

  test('the same bytes after every event, the same losses and errors', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 24 }), (events) => {
        const general = write(copy(events), false);
        const template = write(copy(events), true);
        expect(template.text).toBe(general.text);
        expect(template.diagnostics).toEqual(general.diagnostics);
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('a joined message and a tool output past 64 characters take the fast spelling', () => {
    const hep = { format: 'hep' as const, line: 1, offset: 0 };
    const events = (): AgentEvent[] => [
      { type: 'text.delta', text: `${PAD}"quoted"\n`, session: 's', provenance: hep },
      { type: 'text.delta', text: 'back\\slash \ud83d', session: 's', provenance: hep },
      { type: 'text.delta', text: '\ude00 done', session: 's', provenance: hep },
      { type: 'tool.start', call: 'c1', name: 'Bash', args: { cmd: 'ls' }, session: 's', provenance: hep },
      { type: 'round.end', message: 'm', stopReason: 'tool_use', session: 's', provenance: hep },
      { type: 'tool.end', call: 'c1', ok: true, text: `${PAD}\n"out"\\`, session: 's', provenance: hep },
      { type: 'run.end', status: 'completed', session: 's', provenance: hep },
    ];
    const out = write(events(), true).text;
    expect(out).toBe(write(events(), false).text);
    expect(out).toContain(JSON.stringify(`${PAD}"quoted"\nback\\slash 😀 done`));
    expect(out).toContain(
      `{"type":"tool_result","tool_use_id":"c1","content":${JSON.stringify(`${PAD}\n"out"\\`)},"is_error":false}`,
    );
  });
});
