import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, hep } from '../../src/all';

const H = '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}';
const done = (id: number) =>
  `{"type":"turn_done","turn_id":${id},"message":"","tool_results":[],"usage":{"input":0,"output":0,"cost":0.0},"stop_reason":"stop"}`;
const check = (...lines: string[]) =>
  hep
    .check(`${lines.join('\n')}\n`)
    .map((d) => `${d.code}@${d.line}: ${d.message.replace(/^line \d+ \(byte \d+\): /, '')}`);

describe('hep.check: HEP ordering guarantees', () => {
  test('a conforming stream has no findings', () => {
    expect(check(H, '{"type":"agent_start","turn_id":1}', done(1), done(2))).toEqual([]);
  });

  test('header not first', () => {
    expect(check('{"type":"agent_start","turn_id":1}', H, done(1))).toEqual([
      'order@1: the first line is not a hep_header frame',
      'order@2: hep_header is not the first line',
    ]);
  });

  test('a round with two terminal frames', () => {
    expect(
      check(H, '{"type":"agent_start","turn_id":1}', done(1), '{"type":"cancelled","turn_id":1}'),
    ).toEqual(['order@4: a second terminal frame for turn_id 1, whose round already ended']);
  });

  test('a round with no terminal frame', () => {
    expect(
      check(
        H,
        '{"type":"agent_start","turn_id":1}',
        '{"type":"message_start","turn_id":1,"role":"assistant"}',
      ),
    ).toEqual(['order@3: round 1 has no terminal frame (turn_done, turn_error or cancelled)']);
  });

  test('agent_start repeated', () => {
    expect(
      check(H, '{"type":"agent_start","turn_id":1}', done(1), '{"type":"agent_start","turn_id":2}', done(2)),
    ).toEqual(['order@4: agent_start repeated (once per run)']);
  });

  test('frames of one round with different ids', () => {
    expect(
      check(
        H,
        '{"type":"agent_start","turn_id":1}',
        '{"type":"message_start","turn_id":2,"role":"assistant"}',
        done(2),
      ),
    ).toEqual([
      'order@3: turn_id 2 while round 1 has no terminal frame yet (frames of one round share its id)',
    ]);
  });

  test('unbalanced compaction', () => {
    expect(check(H, '{"type":"compaction_end","turn_id":1,"tokens_freed":1}')).toContain(
      'order@2: compaction_end without compaction_start',
    );
    expect(check(H, '{"type":"compaction_start","turn_id":1}')).toEqual([
      'order@2: compaction in turn_id 1 never ended',
    ]);
  });

  test('a compaction after the last round may end the stream', () => {
    expect(
      check(
        H,
        '{"type":"agent_start","turn_id":1}',
        done(1),
        '{"type":"compaction_start","turn_id":2}',
        '{"type":"compaction_end","turn_id":2,"tokens_freed":9}',
      ),
    ).toEqual([]);
  });

  test('bounds: tool result text over 2000 without marker, empty tool_delta', () => {
    const long = 'x'.repeat(2001);
    expect(
      check(
        H,
        '{"type":"tool_start","turn_id":1,"id":"a","name":"n","args_summary":""}',
        '{"type":"tool_delta","turn_id":1,"id":"a","update":""}',
        `{"type":"turn_done","turn_id":1,"message":"","tool_results":[{"id":"a","name":"n","ok":true,"text":"${long}"}],"usage":{"input":0,"output":0,"cost":0.0},"stop_reason":"stop"}`,
      ),
    ).toEqual([
      'invalid_record@3: tool_delta with an empty update (never written)',
      'invalid_record@4: tool_results[].text is 2001 characters, over the 2000 bound without the …(+N chars) marker',
    ]);
  });

  test('an empty stream', () => {
    expect(hep.check('')).toMatchObject([{ code: 'order', message: 'the stream is empty: no hep_header' }]);
  });
});

// Generated conforming runs: what the writer produces from any sequence of rounds must pass the
// checker and decode back to the same events.
const text = fc.string({ maxLength: 30, unit: 'grapheme' });
const rawText = fc.string({ maxLength: 30, unit: 'binary' });
const toolCall = fc.record({
  call: fc.string({ minLength: 1, maxLength: 8 }),
  name: fc.constantFrom('bash', 'read', 'edit'),
  args: fc.dictionary(
    fc.string({ maxLength: 6 }),
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown),
    { maxKeys: 3 },
  ),
  outputs: fc.array(rawText, { maxLength: 3 }),
  ok: fc.boolean(),
  result: rawText,
});
const round = fc.record({
  deltas: fc.array(text, { maxLength: 3 }),
  tools: fc.array(toolCall, { maxLength: 3 }),
  usage: fc.record({
    input: fc.nat(),
    output: fc.nat(),
    costUsd: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 100, noNaN: true })),
  }),
  compactBefore: fc.boolean(),
});
const run = fc.record({
  rounds: fc.array(round, { minLength: 1, maxLength: 4 }),
  ending: fc.constantFrom('done', 'error', 'cancel'),
  args: fc.constantFrom('summary' as const, 'full' as const),
});

type Run = typeof run extends fc.Arbitrary<infer T> ? T : never;

function buildEvents(r: Run): AgentEvent[] {
  const events: AgentEvent[] = [{ type: 'session.start', session: 'gen', producer: 'p' }];
  r.rounds.forEach((rd, i) => {
    if (rd.compactBefore) {
      events.push({ type: 'compaction.start' }, { type: 'compaction.end', tokensFreed: 10 });
    }
    if (i === 0) events.push({ type: 'run.start' });
    events.push({ type: 'message.start', role: 'assistant' });
    for (const d of rd.deltas) events.push({ type: 'text.delta', text: d });
    for (const t of rd.tools) {
      events.push({ type: 'tool.start', call: t.call, name: t.name, args: t.args });
      for (const o of t.outputs) events.push({ type: 'tool.output', call: t.call, text: o });
    }
    const last = i === r.rounds.length - 1;
    if (last && r.ending === 'error') events.push({ type: 'error', message: 'provider error', fatal: true });
    else if (last && r.ending === 'cancel') events.push({ type: 'cancel' });
    else {
      for (const t of rd.tools)
        events.push({ type: 'tool.end', call: t.call, name: t.name, ok: t.ok, text: t.result });
      events.push({
        type: 'round.end',
        message: rd.deltas.join(''),
        stopReason: last ? 'stop' : 'toolUse',
        usage: rd.usage,
      });
    }
  });
  return events;
}

describe('HEP property tests', () => {
  test('writer output always passes check() and round-trips byte for byte', () => {
    fc.assert(
      fc.property(run, (r) => {
        const events = buildEvents(r);
        const written = hep.stringify(events, { args: r.args });
        const { events: decoded, diagnostics } = hep.parse(written);
        expect(diagnostics).toEqual([]);
        expect(hep.check(written)).toEqual([]);
        expect(hep.stringify(decoded)).toBe(written);
      }),
      { numRuns: 150 },
    );
  });

  test('parse(stringify(events)) gives back every event and field HEP holds', () => {
    const fields = [
      'type',
      'text',
      'call',
      'name',
      'ok',
      'message',
      'stopReason',
      'usage',
      'fatal',
      'tokensFreed',
      'args',
    ];
    const pick = (e: AgentEvent) =>
      Object.fromEntries(fields.filter((f) => f in e).map((f) => [f, (e as Record<string, unknown>)[f]]));
    fc.assert(
      fc.property(run, (r) => {
        const events = buildEvents(r);
        const { events: decoded } = hep.parse(hep.stringify(events, { args: 'full' }));
        const expected = events
          .filter((e) => !(e.type === 'tool.output' && e.text === ''))
          .map((e) => {
            const p = pick(e);
            // Over-long args are cut at 4000 characters in full mode: the object cannot come back.
            if (e.type === 'tool.start' && JSON.stringify(e.args).length > 4000) delete p.args;
            if (e.type === 'session.start') return { type: e.type };
            return p;
          });
        const got = decoded
          .filter((e) => !(e.type === 'run.end' && e.provenance?.synthetic))
          .map((e) => {
            const p = pick(e);
            return e.type === 'session.start' ? { type: e.type } : p;
          });
        expect(got).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });
});
