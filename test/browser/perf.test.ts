import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeharness } from '../../src/formats/nativeharness';
import type { AgentEvent } from '../../src/model';
import { LIVE_ROWS } from '../../src/viewer/viewer';
import { launch, serve } from './harness';

// A long run in the viewer: 100 000 events served by `agentwire serve`, drawn by the page while
// they stream. Measured (printed, recorded in docs/viewer.md): first paint, first row, time to
// draw them all, frame gaps while streaming. Asserted: every event arrives, the page keeps a
// bounded number of rows whatever the length of the run.

const TOTAL = 100_000;

/** A run of `total` events: rounds of streamed text, reasoning, a tool call with output, usage. */
function longRun(total: number): AgentEvent[] {
  const t0 = 1_767_225_600_000;
  const events: AgentEvent[] = [
    { type: 'session.start', ts: t0, title: 'A long run', model: 'model-x' },
    { type: 'run.start', ts: t0, input: 'Refactor every module' },
  ];
  let round = 0;
  while (events.length < total - 1) {
    round++;
    const ts = t0 + round * 1000;
    const lane = round % 10 === 0 ? 'child-1' : undefined;
    const at = (e: AgentEvent): AgentEvent => {
      const out = { ...e, ts, round } as AgentEvent;
      if (lane !== undefined) out.lane = lane;
      return out;
    };
    if (round === 10)
      events.push({
        type: 'child.start',
        ts,
        round,
        child: 'child-1',
        name: 'explorer',
        task: 'Map the modules',
      });
    for (let i = 0; i < 3; i++)
      events.push(at({ type: 'reasoning.delta', text: `thinking about step ${round}.${i} ` }));
    for (let i = 0; i < 8; i++)
      events.push(at({ type: 'text.delta', text: `Round ${round}, chunk ${i} of the answer. ` }));
    const call = `call-${round}`;
    events.push(
      at({
        type: 'tool.start',
        call,
        name: 'bash',
        kind: 'execute',
        args: { command: `make step-${round}` },
        command: `make step-${round}`,
      }),
    );
    for (let i = 0; i < 3; i++)
      events.push(at({ type: 'tool.output', call, text: `line ${i} of step ${round}\n` }));
    events.push(
      at({ type: 'tool.end', call, name: 'bash', ok: round % 17 !== 0, exitCode: round % 17 === 0 ? 1 : 0 }),
    );
    events.push(
      at({
        type: 'round.end',
        message: '',
        stopReason: 'tool_use',
        usage: { input: 1200, output: 80, costUsd: 0.0031 },
      }),
    );
  }
  events.length = total - 1;
  events.push({ type: 'run.end', ts: t0 + (round + 1) * 1000, status: 'completed' });
  return events;
}

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

describe('the viewer on a long run', () => {
  it(`draws ${TOTAL} events without holding the page, with a bounded page`, async () => {
    const file = join(tmpdir(), `agentwire-long-${process.pid}.sse`);
    const text = nativeharness.stringify(longRun(TOTAL), {
      framing: 'sse',
      workspace: 'local',
      session: 'live',
      idSource: () => 'long',
      conform: true,
      extensions: true,
    });
    writeFileSync(file, text);
    const expected = nativeharness.parse(text).events.length;
    const served = await serve([file]);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.addInitScript(() => {
      const w = window as unknown as { __perf: { frames: number[]; firstRow: number; longTasks: number[] } };
      w.__perf = { frames: [], firstRow: 0, longTasks: [] };
      let last = performance.now();
      const tick = (now: number) => {
        w.__perf.frames.push(now - last);
        last = now;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      new MutationObserver((_m, observer) => {
        if (document.querySelector('.row') !== null) {
          w.__perf.firstRow = performance.now();
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__perf.longTasks.push(e.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    try {
      await page.goto(served.origin);
      await page.waitForFunction((n) => Number(document.body.dataset.events ?? 0) >= n, expected, {
        timeout: 90_000,
        polling: 250,
      });
      const m = await page.evaluate(() => {
        const w = window as unknown as {
          __perf: { frames: number[]; firstRow: number; longTasks: number[] };
        };
        const frames = [...w.__perf.frames].sort((a, b) => a - b);
        const q = (p: number) =>
          Math.round(frames[Math.min(frames.length - 1, Math.floor(frames.length * p))]!);
        const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1;
        return {
          firstContentfulPaintMs: Math.round(fcp),
          firstRowMs: Math.round(w.__perf.firstRow),
          allDrawnMs: Math.round(performance.now()),
          frames: frames.length,
          frameMedianMs: q(0.5),
          frameP95Ms: q(0.95),
          frameMaxMs: Math.round(frames[frames.length - 1] ?? 0),
          framesOver50Ms: frames.filter((f) => f > 50).length,
          longTasks: w.__perf.longTasks.length,
          longestTaskMs: Math.round(Math.max(0, ...w.__perf.longTasks)),
          rowsInPage: document.querySelectorAll('main > .row').length,
          domNodes: document.getElementsByTagName('*').length,
          heapMb: Math.round(
            ((performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ??
              0) / 1e6,
          ),
        };
      });
      // The figures go to docs/viewer.md; the test holds what does not depend on the machine.
      console.log(
        `viewer perf (${expected} events, ${(text.length / 1e6).toFixed(1)} MB of SSE): ${JSON.stringify(m)}`,
      );
      expect(m.rowsInPage).toBeLessThanOrEqual(LIVE_ROWS + 1);
      expect(m.firstRowMs).toBeGreaterThan(0);
      expect(await page.locator('.totals').textContent()).toContain(
        `${expected.toLocaleString('en-US').replace(/,/g, '\u2009')} events`,
      );
      // Reading back is instant once drawn: the page answers.
      await page.keyboard.press('End');
      await page.click('.earlier');
      expect(await page.locator('main > .row').count()).toBeGreaterThan(LIVE_ROWS);
    } finally {
      await page.close();
      await served.stop();
    }
  }, 150_000);
});
