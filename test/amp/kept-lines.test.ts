import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { amp } from '../../src/all';
import { AMP_KEPT_LINES } from '../../src/formats/amp/encode';
import type { AgentEvent } from '../../src/model';
import { edits, keptLineSuite, num, odd, text, trustsKeptRecord, value } from '../kept-suite';
import { FUZZ_RUNS } from '../runs';
import { type Written, writeAmp } from './write-events';

// The Amp writer's kept lines (src/formats/amp/encode.ts `keptAssistant`, `keptResults`) held
// equal to the general path: Amp's records and near misses (keys moved or added, numbers spelled
// otherwise or read as Infinity, a `\u` escape, a lane or stop reason `null` or a number, a usage
// without its cache counts or with a cost), their events edited anywhere.

const S = 'T-4f2e6a90-1c3b-4d5e-8f7a-0b1c2d3e4f5a';
const lane = fc.constantFrom(null, null, 'toolu_01Task', 'toolu_"q');
const input = fc.dictionary(fc.constantFrom('cmd', 'path', 'n', '__proto__'), value, { maxKeys: 3 });

const assistantBlock = fc.oneof(
  text.map((t) => ({ type: 'text', text: t })),
  fc
    .tuple(text, fc.boolean())
    .map(([t, s]) =>
      s ? { type: 'thinking', thinking: t, signature: 'sig' } : { type: 'thinking', thinking: t },
    ),
  fc.constant({ type: 'redacted_thinking', data: 'opaque' }),
  fc
    .tuple(fc.constantFrom('toolu_01', 'toolu_02'), input)
    .map(([id, i]) => ({ type: 'tool_use', id, name: 'Bash', input: i })),
  fc.constant({ type: 'image', source: { data: 'x' } }),
);
const usage = fc.oneof(
  fc.record({ a: num, b: num, c: num, d: num }).map(({ a, b, c, d }) => ({
    input_tokens: a,
    cache_creation_input_tokens: b,
    cache_read_input_tokens: c,
    output_tokens: d,
    max_tokens: 968000,
    service_tier: 'standard',
  })),
  fc.record({ a: num, d: num }).map(({ a, d }) => ({ input_tokens: a, output_tokens: d })),
  fc
    .record({ a: num, d: num })
    .map(({ a, d }) => ({ input_tokens: a, output_tokens: d, service_tier: null })),
);
const assistant = fc
  .record({
    content: fc.array(assistantBlock, { minLength: 1, maxLength: 3 }),
    stop: fc.constantFrom('end_turn', 'tool_use', null, undefined),
    usage: fc.option(usage, { nil: undefined }),
    lane,
  })
  .map(({ content, stop, usage, lane }) => {
    const message: Record<string, unknown> = { type: 'message', role: 'assistant', content };
    if (stop !== undefined) message.stop_reason = stop;
    if (usage !== undefined) message.usage = usage;
    return { type: 'assistant', message, parent_tool_use_id: lane, session_id: S };
  });
const userBlock = fc.oneof(
  text.map((t) => ({ type: 'text', text: t })),
  fc
    .tuple(
      fc.constantFrom('toolu_01', 'toolu_02'),
      text,
      fc.option(fc.boolean(), { nil: undefined }),
      fc.boolean(),
    )
    .map(([id, t, err, blocks]) => {
      const b: Record<string, unknown> = {
        type: 'tool_result',
        tool_use_id: id,
        content: blocks ? [{ type: 'text', text: t }] : t,
      };
      if (err !== undefined) b.is_error = err;
      return b;
    }),
);
const user = fc
  .record({ content: fc.oneof(text, fc.array(userBlock, { minLength: 1, maxLength: 3 })), lane })
  .map(({ content, lane }) => ({
    type: 'user',
    message: { role: 'user', content },
    parent_tool_use_id: lane,
    session_id: S,
  }));
const record: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.constant({
      type: 'system',
      subtype: 'init',
      cwd: '/w',
      session_id: S,
      tools: ['Bash'],
      mcp_servers: [],
    }),
  },
  { weight: 4, arbitrary: assistant },
  { weight: 4, arbitrary: user },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.boolean(), text, num).map(([failed, t, n]) => ({
      type: 'result',
      subtype: failed ? 'error_during_execution' : 'success',
      duration_ms: n,
      is_error: failed,
      num_turns: 1,
      result: t,
      session_id: S,
    })),
  },
);

const line = fc.tuple(record, fc.nat({ max: 13 }), odd).map(([r, miss, o]) => {
  let text = JSON.stringify(r);
  if (miss === 1) text = JSON.stringify({ session_id: 'T-other', ...r });
  if (miss === 2) text = JSON.stringify({ ...r, extra: 1 }).replace('"extra":1}', `"extra":${o}}`);
  if (miss === 3) text = text.replace(/:(\d+)([,}])/, `:${o}$2`);
  if (miss === 4) text = text.replace(/"a"/, '"\\u0061"');
  // an odd number in the message beside its content, and in a block the codec does not map
  if (miss === 9) text = text.replace('"role":', `"extra":${o},"role":`);
  if (miss === 10) text = text.replace('"data":"x"', `"data":${o}`);
  if (miss === 5) text = text.replace('"parent_tool_use_id":null', `"parent_tool_use_id":${o}`);
  if (miss === 6) text = text.replace(/"stop_reason":"[a-z_]+"/, `"stop_reason":${o}`);
  if (miss === 7) {
    // the lane and the session in the other order
    const { parent_tool_use_id: l, session_id: s, ...rest } = r;
    text = JSON.stringify({ ...rest, session_id: s, parent_tool_use_id: l });
  }
  if (miss === 8)
    text = text.replace(
      /,"parent_tool_use_id":null/,
      ',"parent_tool_use_id":null,"parent_tool_use_id":1e400',
    );
  return `${text}\n`;
});

// An assistant line with a stop reason and usage, then the run's result: the round's end comes
// while the line is still gathered.
const endedLine = fc
  .tuple(
    fc.array(assistantBlock, { minLength: 1, maxLength: 2 }),
    usage,
    fc.constantFrom(null, 'toolu_01Task'),
  )
  .map(
    ([content, u, l]) =>
      `${JSON.stringify({ type: 'assistant', message: { type: 'message', role: 'assistant', content, stop_reason: 'end_turn', usage: u }, parent_tool_use_id: l, session_id: S })}\n${JSON.stringify({ type: 'result', subtype: 'success', duration_ms: 1, is_error: false, num_turns: 1, result: 'ok', session_id: S })}\n`,
  );

const toolLines = [
  {
    type: 'assistant',
    message: {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { cmd: 'ls', o: { deep: 1 } } }],
      stop_reason: 'tool_use',
      usage: {
        input_tokens: 3,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 5,
        output_tokens: 2,
      },
    },
    parent_tool_use_id: null,
    session_id: S,
  },
  {
    type: 'user',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'x', is_error: false }],
    },
    parent_tool_use_id: null,
    session_id: S,
  },
]
  .map((r) => `${JSON.stringify(r)}\n`)
  .join('');

type Counts = Record<string, number | undefined>;
// A usage's counts moved one by one, or so that the uncached input the line spells stays the same.
const usageChanges: Array<(u: Counts) => void> = [
  (u) => {
    u.cacheRead = (u.cacheRead ?? 0) + 1;
    u.input = (u.input ?? 0) + 1;
  },
  (u) => {
    u.cacheWrite = (u.cacheWrite ?? 0) + 1;
    u.input = (u.input ?? 0) + 1;
  },
  (u) => {
    u.output = (u.output ?? 0) + 1;
  },
  (u) => {
    delete u.cacheRead;
    delete u.cacheWrite;
  },
  (u) => {
    u.reasoning = 1;
  },
  (u) => {
    u.costUsd = 0.5;
  },
  (u) => {
    u.input = Number.POSITIVE_INFINITY;
  },
];
const usageEdit = fc.constantFrom<(e: AgentEvent) => void>(
  ...usageChanges.map((change) => (e: AgentEvent) => {
    const u = (e as { usage?: unknown }).usage;
    if (typeof u === 'object' && u !== null) change(u as Counts);
  }),
);

// The text after every event and the diagnostics (the losses said), with the kept lines on or off.
const write = (events: AgentEvent[], fast: boolean): Written => {
  AMP_KEPT_LINES.enabled = fast;
  try {
    return writeAmp(events, { idSource: () => 'id' });
  } finally {
    AMP_KEPT_LINES.enabled = true;
  }
};

describe('Amp writer: kept lines', () => {
  keptLineSuite({
    codec: amp,
    format: 'amp',
    line,
    fields: [
      'text',
      'session',
      'lane',
      'input',
      'call',
      'name',
      'args',
      'ok',
      'result',
      'error',
      'stopReason',
      'usage',
      'signature',
      'redacted',
      'status',
      'reason',
      'durationMs',
      'answer',
      'cwd',
      'tools',
      'message',
      'role',
    ],
    fastPath: AMP_KEPT_LINES,
    writeOptions: { idSource: () => 'id' },
    adopt: (e) => {
      // The event's arguments are the kept block's own input (as the decoder leaves them), edited.
      const block = e.provenance?.hints?.block as { input?: Record<string, unknown> } | undefined;
      if (e.type !== 'tool.start' || block?.input === undefined) return;
      e.args = block.input;
      block.input.cmd = 'edited';
    },
    adoptLines: toolLines,
  });

  // A round's end and a run's end made the caller's own (their provenance dropped): the round's
  // end then lands on the kept line being gathered (its stop reason and usage put back, as they
  // were or edited) and the run's end totals the lines.
  test('a kept line ended by a round end of no format gives the bytes the general path gives', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(line, endedLine), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(3), { minLength: 8, maxLength: 8 }),
        fc.array(
          fc.tuple(
            fc.nat(),
            fc.oneof(edits(['stopReason', 'usage', 'message', 'lane', 'session']), usageEdit),
          ),
          { minLength: 1, maxLength: 3 },
        ),
        fc.boolean(),
        (lines, strip, changes, copy) => {
          const decoded = amp.parse(lines.join('')).events;
          const events: AgentEvent[] = copy ? JSON.parse(JSON.stringify(decoded)) : decoded;
          // Mostly the ends; any other event now and then (its block then joins the kept line).
          const ends = events.filter((e, i) =>
            e.type === 'round.end' || e.type === 'run.end'
              ? strip[i % strip.length] !== 0
              : strip[i % strip.length] === 3,
          );
          for (const e of ends) delete e.provenance;
          if (ends.length > 0) for (const [at, change] of changes) change(ends[at % ends.length]!);
          expect(write(events, true)).toEqual(write(events, false));
        },
      ),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('each usage edit of a round end of no format, and an extra count read as Infinity, give the bytes the general path gives', () => {
    const counts = [
      'input_tokens',
      'cache_creation_input_tokens',
      'cache_read_input_tokens',
      'output_tokens',
      'max_tokens',
    ];
    // Each count as written, or the one at `at` spelled as a number JSON.parse reads as Infinity.
    for (let at = -1; at < counts.length; at++)
      for (const copy of [false, true])
        for (const change of [...usageChanges, () => {}]) {
          const usage = `{${counts.map((k, i) => `"${k}":${i === at ? '1e400' : i + 2}`).join(',')}}`;
          const message = `{"type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":${usage}}`;
          const lines = `{"type":"assistant","message":${message},"parent_tool_use_id":null,"session_id":"${S}"}\n`;
          const decoded = amp.parse(lines).events;
          const events: AgentEvent[] = copy ? JSON.parse(JSON.stringify(decoded)) : decoded;
          const end = events.find((e) => e.type === 'round.end')!;
          delete end.provenance;
          change((end as unknown as { usage: Counts }).usage);
          expect(write(events, true), `${at} ${copy} ${String(change)}`).toEqual(write(events, false));
        }
  });

  test('decoded events are written back from the kept lines, copied or not', () => {
    const copy = JSON.parse(JSON.stringify(amp.parse(toolLines).events));
    expect(amp.stringify(copy)).toBe(toolLines);
  });

  test("a tool's arguments edited in place, then replaced by an equal copy, are written as edited", () => {
    // The decoder gives the event a copy of the kept input: an in-place edit cannot reach the
    // kept record, so the kept line (which still says the old input) is not proved equal.
    const session = '"session_id":"T-4f2e6a90-1c3b-4d5e-8f7a-0b1c2d3e4f5a"';
    const lines =
      `{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls"}}],"stop_reason":"end_turn"},"parent_tool_use_id":null,${session}}\n` +
      `{"type":"result","subtype":"success","duration_ms":0,"is_error":false,"num_turns":1,"result":"",${session}}\n`;
    const { events } = amp.parse(lines);
    // Unedited, the line comes back through the kept-line path.
    expect(amp.stringify(events)).toBe(lines);
    const start = events.find((e) => e.type === 'tool.start') as AgentEvent & {
      args: Record<string, unknown>;
    };
    start.args.command = 'edited';
    start.args = { ...start.args };
    const kept = amp.stringify(events);
    AMP_KEPT_LINES.enabled = false;
    try {
      expect(kept).toBe(amp.stringify(events));
    } finally {
      AMP_KEPT_LINES.enabled = true;
    }
    expect(kept).toContain('"command":"edited"');
  });

  test('decoded events take it as they come; it trusts the kept record to be what the line parses to', () => {
    trustsKeptRecord(amp, AMP_KEPT_LINES, `${toolLines.split('\n')[1]!}\n`, 'tool.end', (r) => {
      (r.message as Record<string, unknown>).extra = 'edited';
    });
  });
});
