import { describe, expect, it } from 'vitest';
import { codecFor } from '../../src/formats';
import { nativeharness } from '../../src/formats/nativeharness';
import type { AgentEvent } from '../../src/model';
import { listFixtures, loadFixture } from '../../src/node/fixtures';

// The envelope fields a conversion gives new values (seq, ts, ids) and where an event came from.
function comparable(e: AgentEvent): Record<string, unknown> {
  // `round`: nativeharness numbers hops itself (a call without a round gets the open hop's).
  const { provenance: _p, seq: _s, ts: _t, workspace: _w, session: _se, run: _r, round: _ro, ...rest } = e;
  // tool_result always lists the files changed.
  const r = rest as Record<string, unknown>;
  if (Array.isArray(r.filesChanged) && r.filesChanged.length === 0) delete r.filesChanged;
  // done and hop carry input, output and cost (docs/protocols/nativeharness.md).
  const u = (rest as { usage?: Record<string, unknown> }).usage;
  if (u !== undefined && (e.type === 'round.end' || e.type === 'run.end')) {
    (rest as Record<string, unknown>).usage = {
      input: u.input ?? 0,
      output: u.output ?? 0,
      costUsd: u.costUsd ?? 0,
    };
  }
  return rest;
}

const fixed = { clock: () => 1_767_225_600_000, idSource: () => 'id', conform: true };

describe('nativeharness: the agentwire extension', () => {
  it('carries every event and field of every fixture that nativeharness has no place for', () => {
    let carried = 0;
    for (const info of listFixtures()) {
      if (info.format === 'nativeharness') continue;
      const { bytes } = loadFixture(info.format, info.name);
      const source = codecFor(info.format)!.parse(bytes).events;
      const losses: string[] = [];
      const text = nativeharness.stringify(source, {
        ...fixed,
        extensions: true,
        onDiagnostic: (d) => {
          if (d.code === 'loss') losses.push(d.field ?? d.message);
        },
      });
      const back = nativeharness.parse(text);
      expect(back.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
      // What still cannot travel: a second session start (conform), unknown records of other formats.
      const expected = source.filter(
        (e) =>
          !(e.type === 'run.end' && e.status === 'incomplete' && e.provenance?.synthetic) &&
          e.type !== 'unknown' &&
          e.type !== 'message.start' &&
          e.type !== 'round.start',
      );
      const got = back.events.filter((e) => e.type !== 'message.start');
      const lanes = expected.filter((e) => e.lane !== undefined || e.type === 'reasoning.delta');
      carried += lanes.length;
      for (const e of lanes) expect(got.map(comparable)).toContainEqual(comparable(e));
      // Nor the usage's cache and reasoning counts: done and hop carry input, output and cost only.
      expect(
        losses.filter(
          (l) =>
            !/^(session\.start|unknown)/.test(l) && !/\.usage\.(cacheRead|cacheWrite|reasoning)$/.test(l),
        ),
      ).toEqual([]);
      // Read back and written again: the same bytes.
      expect(nativeharness.stringify(back.events, { framing: 'sse' })).toBe(text);
    }
    expect(carried).toBeGreaterThan(0);
  });

  it('is off by default: the same conversion reports losses and writes no extension', () => {
    const { bytes } = loadFixture('codex', 'collab');
    const losses: string[] = [];
    const text = nativeharness.stringify(codecFor('codex')!.parse(bytes).events, {
      ...fixed,
      onDiagnostic: (d) => d.code === 'loss' && losses.push(d.field ?? ''),
    });
    expect(text).not.toContain('agentwire');
    expect(losses.length).toBeGreaterThan(0);
  });

  it('an extension that is not a canonical event is an unknown record; a misfit key is ignored', () => {
    const envelope = (type: string, payload: unknown, seq: number) =>
      `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ seq, ts: 1, type, workspace_id: 'w', session_id: 's', turn_id: null, payload })}\n\n`;
    const text =
      envelope('agentwire_event', { event: { type: 'reasoning.delta' } }, 1) +
      envelope('agentwire_event', { event: { type: 'notice', kind: 'retry', __proto__: 1 } }, 2) +
      envelope('progress', { status: 'running', agentwire: { lane: 7 } }, 3) +
      envelope('progress', { status: 'running', agentwire: { lane: 'c1', status: 'x' } }, 4);
    const r = nativeharness.parse(text);
    expect(r.events.map((e) => e.type)).toEqual(['unknown', 'notice', 'status', 'status']);
    expect(r.events[2]!.lane).toBeUndefined();
    expect(r.events[3]).toMatchObject({ lane: 'c1', status: 'running' });
    expect(Object.getPrototypeOf(r.events[1])).toBe(Object.prototype);
    expect(r.diagnostics.map((d) => d.code)).toContain('invalid_record');
    expect(nativeharness.stringify(r.events)).toBe(text);
  });
});
