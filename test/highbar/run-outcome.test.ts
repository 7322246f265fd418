import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { highbar } from '../../src/formats/highbar/index';
import type { AgentEvent, AgentEventOf } from '../../src/model';
import { tailTrace } from '../../src/node/tail';

// Issue #16, round ten: a run left open at the end of a trace, and failed calls written back.
const tool = (n: number, test: string) =>
  `{"v": 1, "type": "tool", "ts": ${n}.5, "fn": "f", "args": {}, "result": null, "error": null, "started_at": ${n}.5, "ended_at": ${n}.5, "context": {"test": "${test}"}}\n`;

describe('a run without its turn record (bug 9)', () => {
  test('the end of the input ends it incomplete (synthetic, with its context); written back without it', () => {
    const text = tool(1, 't-1') + tool(2, 't-1');
    const { events, diagnostics } = highbar.parse(text);
    expect(diagnostics).toEqual([]);
    expect(events.map((e) => e.type)).toEqual([
      'run.start',
      'tool.start',
      'tool.end',
      'tool.start',
      'tool.end',
      'run.end',
    ]);
    const end = events.at(-1) as AgentEventOf<'run.end'>;
    expect(end).toMatchObject({ status: 'incomplete', context: { test: 't-1' } });
    expect(end.provenance).toMatchObject({ format: 'highbar', line: 2, synthetic: true });
    expect(highbar.stringify(events)).toBe(text);
  });

  test('a run its turn ends gets no synthetic end', () => {
    const text = `${tool(1, 't')}{"v": 1, "type": "turn", "ts": 2.5, "context": {"test": "t"}}\n`;
    const ends = highbar.parse(text).events.filter((e) => e.type === 'run.end');
    expect(ends.map((e) => (e as AgentEventOf<'run.end'>).status)).toEqual(['completed']);
  });

  test("a new writer's hello ends the run the previous one left open, incomplete", () => {
    const text = `${tool(1, 'a')}{"v": 1, "type": "hello", "ts": 2.5, "sdk": "s/1", "pid": 2, "tools": []}\n${tool(3, 'b')}{"v": 1, "type": "turn", "ts": 4.5}\n`;
    const { events } = highbar.parse(text);
    const runs = events.filter((e) => e.type.startsWith('run.') || e.type === 'session.start');
    expect(
      runs.map((e) => `${e.type}${e.type === 'run.end' ? `(${(e as AgentEventOf<'run.end'>).status})` : ''}`),
    ).toEqual(['run.start', 'run.end(incomplete)', 'session.start', 'run.start', 'run.end(completed)']);
    expect(highbar.stringify(events)).toBe(text);
  });

  test('a tailed trace (a file still being written) invents no end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwire-hb-open-'));
    try {
      const path = join(dir, 'trace.jsonl');
      writeFileSync(path, tool(1, 't'));
      const controller = new AbortController();
      const seen: AgentEvent[] = [];
      const done = (async () => {
        for await (const item of tailTrace(path, { signal: controller.signal, pollMs: 10 })) {
          if (item.type === 'event') seen.push(item.event);
        }
      })();
      const deadline = Date.now() + 5000;
      while (seen.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 100));
      controller.abort();
      await done;
      expect(seen.map((e) => e.type)).toEqual(['run.start', 'tool.start', 'tool.end']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a failed call is never written as "error": "" (bug 4a)', () => {
  const read = (events: AgentEvent[]) => {
    const losses: Diagnostic[] = [];
    const text = highbar.stringify(events, { clock: () => 1000, onDiagnostic: (d) => losses.push(d) });
    const ends = highbar
      .parse(text)
      .events.filter((e) => e.type === 'tool.end') as AgentEventOf<'tool.end'>[];
    return { text, ends };
  };
  const call = (end: Partial<AgentEventOf<'tool.end'>>): AgentEvent[] => [
    { type: 'tool.start', call: 'c1', name: 'bash' },
    { type: 'tool.end', call: 'c1', name: 'bash', ok: false, ...end },
  ];

  test('ok: false with an empty text is written as "failed"; denied as "denied"; it reads back failed', () => {
    const failed = read(call({ text: '' }));
    expect(failed.text).toContain('"error": "failed"');
    expect(failed.ends.map((e) => e.ok)).toEqual([false]);
    const denied = read(call({ text: '', denied: true }));
    expect(denied.text).toContain('"error": "denied"');
    expect(denied.ends.map((e) => e.ok)).toEqual([false]);
    const emptyError = read(call({ error: '' }));
    expect(emptyError.text).toContain('"error": "failed"');
    expect(emptyError.ends.map((e) => e.ok)).toEqual([false]);
  });

  test("ok: false keeps the call's own error or text; ok: true stays null", () => {
    expect(read(call({ error: 'boom' })).text).toContain('"error": "boom"');
    expect(read(call({ text: 'exit 2' })).text).toContain('"error": "exit 2"');
    const ok = read(call({ ok: true, text: '' }));
    expect(ok.text).toContain('"error": null');
    expect(ok.ends.map((e) => e.ok)).toEqual([true]);
  });
});
