import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { type AgentEvent, hep } from '../../src/all';
import { HEP_TEMPLATES } from '../../src/formats/hep/encode';
import { FUZZ_RUNS } from '../runs';
import { text, usage, type Written, writeSwitched } from '../writer-values';

// The HEP writer spells `message_start`, `tool_start`, a tool result, `turn_done` and its usage
// from one template each when the event has no fields of its own or kept line to restore
// (docs/performance.md, "HEP writer, round eighteen"). This property holds the templates equal
// to the general path (`frame` and `joinRecord` over pieces) on random event streams: the same
// bytes after every event, the same diagnostics, the same error when a value cannot be written.

// Provenance: none, another format's, HEP's with nothing of its own, or HEP's with fields of its
// own, an original key order, hints (an empty hints object, usage fields, a kept line).
const provenance = fc.constantFrom<unknown>(
  undefined,
  undefined,
  { format: 'amp', line: 3, offset: 9 },
  { format: 'hep', line: 1, offset: 0 },
  { format: 'hep', line: 1, offset: 0 },
  { format: 'hep', line: 2, offset: 5, hints: {} },
  { format: 'hep', line: 2, offset: 5, extra: { x: 1, y: 'z' } },
  { format: 'hep', line: 2, offset: 5, order: ['turn_id', 'type'] },
  { format: 'hep', line: 2, offset: 5, hints: { usageExtra: { cached: 3 } } },
  { format: 'hep', line: 2, offset: 5, hints: { usageOrder: ['cost', 'input', 'output'] } },
  { format: 'hep', line: 2, offset: 5, hints: { raw: '{"type":"turn_done" , "turn_id":1}' } },
);
const round = fc.constantFrom<unknown>(undefined, 1, 1, 2, 3);

const event: fc.Arbitrary<AgentEvent> = fc
  .tuple(
    fc.constantFrom(
      'message.start',
      'text.delta',
      'tool.start',
      'tool.start-summary',
      'tool.output',
      'tool.end',
      'tool.end',
      'tool.end-streamed',
      'round.end',
      'round.end',
      'run.end',
      'run.start',
      'error',
    ),
    fc.tuple(
      text,
      text,
      fc.constantFrom<unknown>('c1', 'c1', 'c2', 'c2', 'c"3', 'c1', 'c2', 4),
      fc.boolean(),
    ),
    fc.tuple(
      usage,
      fc.constantFrom<unknown>(undefined, 'stop', 'toolUse', 'x"\n', undefined, 'stop', 'toolUse', 3),
      provenance,
      round,
    ),
  )
  .map(([kind, [t, t2, call, ok], [u, stop, p, r]]) => {
    const e: Record<string, unknown> = (() => {
      switch (kind) {
        case 'message.start':
          return { type: 'message.start', role: 'assistant' };
        case 'text.delta':
          return { type: 'text.delta', text: t };
        case 'tool.start':
          return { type: 'tool.start', call, name: t2, args: { cmd: t } };
        case 'tool.start-summary':
          return { type: 'tool.start', call, name: 'bash', argsSummary: t };
        case 'tool.output':
          return { type: 'tool.output', call, text: t };
        case 'tool.end':
          return { type: 'tool.end', call, name: t2, ok, text: t, error: ok ? undefined : t2 };
        case 'tool.end-streamed':
          return { type: 'tool.end', call, ok, result: ok ? { n: t } : undefined };
        case 'round.end':
          return { type: 'round.end', message: t, stopReason: stop, usage: ok ? u : undefined };
        case 'run.end':
          return { type: 'run.end', status: ok ? 'completed' : 'failed', answer: t, usage: u };
        case 'run.start':
          return { type: 'run.start' };
        default:
          return { type: 'error', message: t, fatal: ok };
      }
    })();
    if (r !== undefined) e.round = r;
    if (p !== undefined) e.provenance = structuredClone(p);
    return e as unknown as AgentEvent;
  });

// The text of every event followed by `|`, then the end, or `threw …` where a write threw.
function write(events: AgentEvent[], templates: boolean, options: object): Written {
  return writeSwitched(
    HEP_TEMPLATES,
    templates,
    (onDiagnostic) => hep.createEncoder({ session: 's1', producer: '1.0.0', ...options, onDiagnostic }),
    events,
  );
}

const options = fc.record({
  messageStarts: fc.constantFrom<'as-events' | 'each-round'>('as-events', 'each-round'),
  turnIds: fc.constantFrom<'keep' | 'allocate'>('keep', 'allocate'),
  args: fc.constantFrom<'summary' | 'full'>('summary', 'full'),
});

describe('HEP writer: the round templates against the general path', () => {
  afterEach(() => {
    HEP_TEMPLATES.enabled = true;
  });

  test('the same bytes after every event, the same losses and errors', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 24 }), options, (events, opts) => {
        const general = write(structuredClone(events), false, opts);
        const template = write(structuredClone(events), true, opts);
        expect(template.text).toBe(general.text);
        expect(template.diagnostics).toEqual(general.diagnostics);
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('the templates are the frames the reference writes', () => {
    const out = write(
      [
        { type: 'message.start', role: 'assistant', round: 1 },
        { type: 'tool.start', call: 'c1', name: 'bash', argsSummary: 'cmd="ls"', round: 1 },
        { type: 'tool.end', call: 'c1', name: 'bash', ok: true, text: 'a\n"b"', round: 1 },
        { type: 'tool.end', call: 'c2', ok: false, text: '', round: 1 },
        {
          type: 'round.end',
          message: 'done',
          usage: { input: 3, output: 4, costUsd: 0.5 },
          stopReason: 'toolUse',
          round: 1,
        },
      ],
      true,
      {},
    ).text;
    expect(out.split('|').slice(0, -1)).toEqual([
      '{"type":"hep_header","hep":"v1","fah":"1.0.0","session":"s1"}\n{"type":"message_start","turn_id":1,"role":"assistant"}\n',
      '{"type":"tool_start","turn_id":1,"id":"c1","name":"bash","args_summary":"cmd=\\"ls\\""}\n',
      '',
      '',
      '{"type":"turn_done","turn_id":1,"message":"done","tool_results":[{"id":"c1","name":"bash","ok":true,"text":"a\\n\\"b\\""},{"id":"c2","name":"","ok":false,"text":""}],"usage":{"input":3,"output":4,"cost":0.5},"stop_reason":"toolUse"}\n',
    ]);
  });
});
