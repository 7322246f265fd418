import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AgentwireError } from '../../src/diagnostics';
import { nativeharness } from '../../src/formats/nativeharness/index';
import type { AgentEvent } from '../../src/model';

const env = (seq: string | number, type: string, payload: string, extra = '') =>
  `{"seq":${seq},"ts":1,"type":"${type}","workspace_id":"w","session_id":"s","turn_id":"t"${extra},"payload":${payload}}`;

describe('bad input', () => {
  test('seq beyond 2^53 is invalid_record, never rounded; the stream goes on', () => {
    const text = `${env('9007199254740993', 'progress', '{"status":"running"}')}\n${env(2, 'progress', '{"status":"x"}')}\n`;
    const { events, diagnostics } = nativeharness.parse(text);
    expect(diagnostics.map((d) => [d.code, d.line, d.offset])).toEqual([['invalid_record', 1, 0]]);
    expect(events.map((e) => e.seq)).toEqual([2]);
  });
  test('seq not increasing is an order error; bad JSON, bad payloads and unknown types are reported', () => {
    const lines = [
      env(5, 'progress', '{"status":"a"}'),
      env(5, 'progress', '{"status":"b"}'),
      '{not json',
      env(6, 'token', '{"hop":"1","text":"x"}'),
      env(7, 'future_thing', '{"x":1}'),
      env(8, 'title', '{"title":"t","__proto__":{"polluted":true}}'),
    ];
    const { events, diagnostics } = nativeharness.parse(`${lines.join('\n')}\n`);
    expect(diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['order', 2],
      ['invalid_json', 3],
      ['invalid_record', 4],
      ['unknown_record', 5],
    ]);
    expect(events.map((e) => e.type)).toEqual(['status', 'status', 'unknown', 'session.title']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(events[3]!.provenance!.hints!.payloadExtra as object, '__proto__')).toBe(true);
    // The duplicate seq is refused by the writer; the others are rewritten byte for byte.
    expect(() => nativeharness.stringify(events, { framing: 'jsonl' })).toThrow(AgentwireError);
    const kept = [events[0]!, events[2]!, events[3]!];
    expect(nativeharness.stringify(kept, { framing: 'jsonl' })).toBe(
      `${[lines[0], lines[4], lines[5]].join('\n')}\n`,
    );
    expect(() => nativeharness.parse(lines[3]!, { strict: true })).toThrow(AgentwireError);
  });
  test('an unsupported protocol version is reported and read on', () => {
    const { events, diagnostics } = nativeharness.parse(
      env(1, 'session_created', '{"v":2,"actor":"a","mode":"m"}'),
    );
    expect(diagnostics.map((d) => d.code)).toEqual(['unsupported_version']);
    expect(events).toHaveLength(1);
  });
  test('JSON arrays: compact, pretty-printed, empty; an oversized element is skipped', () => {
    const lines = readFileSync('fixtures/nativeharness/live-turn.jsonl', 'utf8').trim().split('\n');
    const expected = nativeharness.parse(lines.join('\n')).events.map((e) => e.seq);
    const compact = `[${lines.join(',')}]`;
    const pretty = JSON.stringify(
      lines.map((l) => JSON.parse(l)),
      null,
      2,
    );
    for (const text of [compact, pretty, ` \r\n${compact}\n`]) {
      const r = nativeharness.parse(text);
      expect(r.diagnostics).toEqual([]);
      expect(r.events.map((e) => e.seq)).toEqual(expected);
    }
    expect(nativeharness.parse('[]')).toEqual({ events: [], diagnostics: [] });
    const big = `[${lines[0]},${env(2, 'token', `{"hop":1,"text":"${'x'.repeat(5000)}"}`)},${lines[2]}]`;
    const r = nativeharness.parse(big, { maxEventBytes: 1000 });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['event_too_large']);
    expect(r.events.map((e) => e.seq)).toEqual([1, 3]);
    expect(nativeharness.parse('[{"seq":1').diagnostics.map((d) => d.code)).toEqual(['incomplete_line']);
  });
  test('SSE id / event that disagree with the envelope are warnings, kept for a byte-exact rewrite', () => {
    const text = `id: 9\nevent: other\ndata: ${env(3, 'progress', '{"status":"a"}')}\n\ndata: ${env(4, 'progress', '{"status":"b"}')}\n\n`;
    const { events, diagnostics } = nativeharness.parse(text);
    expect(diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['invalid_record', 'warning'],
      ['invalid_record', 'warning'],
    ]);
    expect(nativeharness.stringify(events)).toBe(text);
  });
});

describe('round trips', () => {
  const text = fc.string({ unit: 'binary', maxLength: 20 });
  const id = fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme-ascii' });
  const event: fc.Arbitrary<AgentEvent> = fc.oneof(
    text.map((t): AgentEvent => ({ type: 'text.delta', text: t, round: 1 })),
    fc
      .record({ call: id, t: text })
      .map(({ call, t }): AgentEvent => ({ type: 'tool.output', call, stream: 'stderr', text: t, round: 1 })),
    fc
      .record({ s: text, d: fc.option(text, { nil: undefined }) })
      .map(
        ({ s, d }): AgentEvent =>
          d === undefined ? { type: 'status', status: s } : { type: 'status', status: s, detail: d },
      ),
    fc
      .record({ m: text, f: fc.boolean() })
      .map(({ m, f }): AgentEvent => ({ type: 'error', message: m, fatal: f })),
    fc.nat().map((n): AgentEvent => ({ type: 'compaction.end', tokensFreed: n })),
    fc
      .record({ c: id, ok: fc.boolean(), out: text, code: fc.option(fc.integer(), { nil: undefined }) })
      .map(({ c, ok, out, code }): AgentEvent => {
        const e: AgentEvent = {
          type: 'tool.end',
          call: c,
          name: 'bash',
          ok,
          text: out,
          filesChanged: [],
          round: 1,
        };
        if (code !== undefined) e.exitCode = code;
        return e;
      }),
  );
  test('parse(stringify(events)) gives the events back, in every framing; stringify is then byte-stable', () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 8 }),
        fc.constantFrom('sse', 'json', 'jsonl' as const),
        (events, framing) => {
          const all: AgentEvent[] = [{ type: 'run.start', run: 'r', input: '' }, ...events];
          const wire = nativeharness.stringify(all, {
            framing,
            workspace: 'w',
            session: 's',
            clock: () => 7,
          });
          const back = nativeharness.parse(wire);
          expect(back.diagnostics).toEqual([]);
          // `round` is also stamped on events after a hop-carrying one (the turn's current hop).
          const plain = back.events.map(
            ({ provenance: _p, seq: _s, ts: _t, workspace: _w, session: _se, run: _r, round: _o, ...e }) => e,
          );
          // The turn has no done: the input ends it with a synthetic incomplete end (model.md).
          expect(plain).toEqual([
            ...all.map(({ run: _r, round: _o, ...e }) => e),
            { type: 'run.end', status: 'incomplete' },
          ]);
          expect(back.events.at(-1)?.provenance?.synthetic).toBe(true);
          expect(nativeharness.stringify(back.events, { framing })).toBe(wire);
        },
      ),
      { numRuns: 150 },
    );
  });
});
