import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as agentwire from '../../src/all';
import { listFixtures, loadFixture } from '../../src/node/fixtures';
import { launch, ROOT } from './harness';

// The browser-safe core in a real page: the library bundled from its sources with esbuild for
// the browser, then every shipped fixture parsed, streamed in small chunks, checked, written
// back and converted to every format, in Chromium and in Node, compared.

type Lib = typeof agentwire;

interface Outcome {
  format: string | undefined;
  parsed: string;
  text: string;
  exact: boolean;
  streamed: string;
  check: string;
  converted: Record<string, string>;
}

// Runs in the page and in Node alike (no closure over anything but its arguments).
async function exercise(lib: Lib, bytes: Uint8Array, targets: string[]): Promise<Outcome> {
  const format = lib.detectFormat(bytes)?.format;
  const codec = lib.codecFor(format ?? 'hep')!;
  const parsed = codec.parse(bytes);
  const text = codec.stringify(parsed.events);
  const original = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const chunks = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.subarray(i, i + 7));
      controller.close();
    },
  });
  const streamed: unknown[] = [];
  const reader = chunks.pipeThrough(codec.decoderStream()).getReader();
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    streamed.push(r.value);
  }
  const withCheck = codec as { check?: (input: Uint8Array) => unknown };
  const converted: Record<string, string> = {};
  for (const to of targets) {
    let n = 0;
    try {
      converted[to] = lib.convert(bytes, {
        from: codec.format,
        to: to as never,
        clock: () => 1_767_225_600_000,
        idSource: () => `id${++n}`,
      }).output;
    } catch (e) {
      converted[to] = `threw ${(e as Error).name}: ${(e as Error).message}`;
    }
  }
  return {
    format,
    parsed: JSON.stringify(parsed),
    text,
    exact: text === original,
    streamed: JSON.stringify(streamed),
    check: JSON.stringify(withCheck.check?.(bytes) ?? null),
    converted,
  };
}

// zod words an issue in full when its English locale is loaded (as it is under vitest) and as
// "Invalid input" when not (the bundle, and the built library in plain Node): the one
// difference allowed between the two sides.
function plain(o: Outcome): Outcome {
  const cut = (t: string) =>
    t.replace(/Invalid input: expected [^,;"\\]+?, received [a-z]+/g, 'Invalid input');
  const converted: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.converted)) converted[k] = cut(v);
  return { ...o, parsed: cut(o.parsed), streamed: cut(o.streamed), check: cut(o.check), converted };
}

let browser: Browser;
let page: Page;
beforeAll(async () => {
  const [bundle, b] = await Promise.all([
    build({
      entryPoints: [`${ROOT}/src/all.ts`],
      bundle: true,
      write: false,
      format: 'iife',
      globalName: 'agentwire',
      platform: 'browser',
      target: 'es2022',
    }),
    launch(),
  ]);
  browser = b;
  page = await browser.newPage();
  await page.setContent('<!doctype html><title>agentwire core</title>');
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  await page.addScriptTag({ content: `window.exercise = ${exercise.toString()};` });
});
afterAll(() => browser?.close());

describe('the core entries in Chromium', () => {
  it('has no Node built-in in the bundle and exposes the same API', async () => {
    const keys = await page.evaluate(() =>
      Object.keys((window as unknown as { agentwire: object }).agentwire).sort(),
    );
    expect(keys).toEqual(Object.keys(agentwire).sort());
  });

  it('parses, streams, checks, writes back and converts every fixture as Node does', async () => {
    const targets = Object.keys(agentwire.codecs);
    let exact = 0;
    const fixtures = listFixtures();
    expect(fixtures.length).toBeGreaterThan(50);
    for (const info of fixtures) {
      const { bytes } = loadFixture(info.format, info.name);
      const inNode = await exercise(agentwire, bytes, targets);
      const inPage = await page.evaluate(
        async ([b64, t]) => {
          const w = window as unknown as { agentwire: Lib; exercise: typeof exercise };
          const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
          return w.exercise(w.agentwire, data, t);
        },
        [Buffer.from(bytes).toString('base64'), targets] as const,
      );
      expect(plain(inPage), `${info.format}/${info.name}`).toEqual(plain(inNode));
      if (inPage.exact) exact++;
      else {
        // Only a stream with a bad line, or another framing than the writer's default, may not.
        const bad = agentwire
          .codecFor(info.format)!
          .parse(bytes)
          .diagnostics.some((d) => d.severity === 'error');
        expect(bad || /\.jsonl?$/.test(info.name), `${info.format}/${info.name}`).toBe(true);
      }
    }
    // Byte-exact round trips in the page, as in Node (compared above, the flag included). What
    // does not round-trip: streams with bad lines, and other framings than the writer's default.
    expect(exact).toBeGreaterThan(40);
  });
});
