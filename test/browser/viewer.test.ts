import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Format } from '../../src/diagnostics';
import { codecFor, codecs } from '../../src/formats';
import { nativeharness } from '../../src/formats/nativeharness';
import { listFixtures } from '../../src/node/fixtures';
import { freePort, launch, serve } from './harness';
import { hostileStream } from './hostile';

// The viewer page against a live `agentwire serve`, in Chromium.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

const events = (page: Page) => page.evaluate(() => Number(document.body.dataset.events ?? 0));

// What the page shows, durations left out (they come from the clock for formats without times).
const picture = (page: Page) =>
  page.evaluate(() => {
    const log = document.querySelector('main')!.cloneNode(true) as HTMLElement;
    for (const d of log.querySelectorAll('.dur')) d.remove();
    return {
      rows: log.children.length,
      text: log.textContent,
      totals: document.querySelector('.totals')!.textContent,
    };
  });

// Generous: a restarted server's process starts and the page's retry (up to 5 s apart) finds it
// on a machine the rest of the suite loads (20 s once ran out there, run 16:18 of round
// thirty-two). Timed out, the error says where the connection stood.
async function ended(page: Page): Promise<void> {
  try {
    await page.waitForFunction(
      () => document.querySelector('.conn')?.getAttribute('data-state') === 'ended',
      null,
      { timeout: 60_000 },
    );
  } catch (error) {
    const state = await page.evaluate(() => {
      const conn = document.querySelector('.conn');
      return `${conn?.getAttribute('data-state')}: ${conn?.textContent}`;
    });
    throw new Error(`the viewer did not end (connection ${state}): ${String(error)}`);
  }
}

describe('the viewer', () => {
  it('shows every format: the source format, runs, tools, lanes and reasoning', async () => {
    const page = await browser.newPage();
    // One fixture per format agentwire reads (a new codec is in this list by registering).
    const preferred: Record<string, string> = {
      hep: 'parallel-tools',
      nativeharness: 'approvals',
      codex: 'collab',
      opencode: 'child-session',
    };
    const cases = Object.keys(codecs).map((format): [string, string] => {
      const all = listFixtures(format as Format).filter((f) => !/\.jsonl?$/.test(f.name));
      const pick = all.find((f) => f.name === preferred[format]) ?? all[0];
      if (pick === undefined) throw new Error(`no fixture for ${format}`);
      return [format, pick.path];
    });
    expect(cases.length).toBeGreaterThanOrEqual(8);
    for (const [format, file] of cases) {
      const served = await serve([file]);
      try {
        await page.goto(served.origin);
        await ended(page);
        await page.waitForFunction(
          (f) => document.querySelector('.format')?.getAttribute('data-format') === f,
          format,
        );
        expect(await events(page), file).toBeGreaterThan(2);
        expect(await page.locator('.row').count(), file).toBeGreaterThan(2);
        if (format === 'codex') {
          expect(await page.locator('.row.lane').count()).toBeGreaterThan(0);
          expect(await page.locator('.lane-head').count()).toBe(1);
        }
        if (format === 'nativeharness') expect(await page.locator('.approval').count()).toBeGreaterThan(0);
        if (format === 'hep') expect(await page.locator('.tool').count()).toBeGreaterThan(1);
      } finally {
        await served.stop();
      }
    }
    const served = await serve(['fixtures/opencode/reasoning.jsonl']);
    await page.goto(served.origin);
    await ended(page);
    expect(await page.locator('.reasoning').count()).toBeGreaterThan(0);
    await served.stop();
    await page.close();
  });

  it('renders a hostile stream inertly: no script runs, no element is injected', async () => {
    const file = join(tmpdir(), `agentwire-hostile-${process.pid}.sse`);
    const text = hostileStream();
    writeFileSync(file, text);
    const expected = nativeharness.parse(text).events.length;
    const served = await serve([file]);
    const page = await browser.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { __violations: string[] };
      w.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(e.violatedDirective));
    });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    try {
      await page.goto(served.origin);
      await ended(page);
      expect(await events(page)).toBe(expected);
      // Everything expandable expanded: the 1 MB text in full, every card open.
      await page.evaluate(() => {
        for (const b of document.querySelectorAll<HTMLElement>('.tool-head[aria-expanded="false"]'))
          b.click();
        for (const b of document.querySelectorAll<HTMLElement>('.message button.more')) b.click();
      });
      expect(await page.locator('.tool-head[aria-expanded="false"]').count()).toBe(0);
      const result = await page.evaluate(() => {
        const w = window as unknown as { __pwned?: unknown; __violations: string[] };
        const tags = [...document.querySelectorAll('*')].map((e) => e.tagName.toLowerCase());
        // Our own elements carry no handler, link or source attribute (the page script's src aside).
        const onAttrs = [...document.body.querySelectorAll('*')]
          .filter((e) => e !== document.currentScript && e.tagName !== 'SCRIPT')
          .flatMap((e) =>
            [...e.attributes]
              .map((a) => a.name)
              .filter((n) => n.startsWith('on') || n === 'href' || n === 'src' || n === 'style'),
          );
        return {
          pwned: w.__pwned,
          violations: w.__violations,
          foreign: tags.filter((t) =>
            ['img', 'svg', 'iframe', 'a', 'style', 'object', 'embed', 'b', 'video', 'audio', 'form'].includes(
              t,
            ),
          ),
          scripts: document.scripts.length,
          links: document.querySelectorAll('link').length,
          onAttrs,
          text: document.body.textContent ?? '',
          longest: Math.max(...[...document.querySelectorAll('pre')].map((p) => p.textContent!.length)),
        };
      });
      expect(result.pwned).toBeUndefined();
      expect(result.violations).toEqual([]);
      expect(result.foreign).toEqual([]);
      expect(result.scripts).toBe(1);
      expect(result.links).toBe(1);
      expect(result.onAttrs).toEqual([]);
      expect(dialogs).toEqual([]);
      // Shown as text, controls made visible.
      expect(result.text).toContain('<script>window.__pwned = "script"</script>');
      expect(result.text).toContain('<img src=x onerror=');
      expect(result.text).toContain('\\x1b[31mred');
      expect(result.text).toContain('\\u202egnp.exe');
      expect(result.text).not.toContain('\u001b');
      expect(result.text).not.toContain('\u202e');
      expect(result.longest).toBeGreaterThan(1_000_000);
      expect(await page.title()).toContain('<script>');
    } finally {
      await page.close();
      await served.stop();
    }
  });

  it('is driven from the keyboard', async () => {
    const served = await serve(['fixtures/hep/parallel-tools.jsonl']);
    const page = await browser.newPage();
    try {
      await page.goto(served.origin);
      await ended(page);
      const active = () =>
        page.evaluate(() => {
          const a = document.activeElement as HTMLElement;
          const rows = [...document.querySelectorAll('main > .row')];
          return {
            index: rows.indexOf(a),
            cls: a.className,
            expanded: a.querySelector('.tool-head')?.getAttribute('aria-expanded'),
          };
        });
      await page.keyboard.press('j');
      expect((await active()).index).toBe(0);
      await page.keyboard.press('j');
      expect((await active()).index).toBe(1);
      await page.keyboard.press('k');
      expect((await active()).index).toBe(0);
      // On to the first tool card; Enter opens it, Enter closes it.
      for (let i = 0; i < 20 && !(await active()).cls.includes('tool'); i++)
        await page.keyboard.press('ArrowDown');
      const tool = await active();
      expect(tool.cls).toContain('tool');
      expect(tool.expanded).toBe('false');
      await page.keyboard.press('Enter');
      expect(await active()).toMatchObject({ index: tool.index, expanded: 'true' });
      await page.keyboard.press('Enter');
      expect((await active()).expanded).toBe('false');
      await page.keyboard.press('End');
      const rows = await page.locator('main > .row').count();
      expect((await active()).index).toBe(rows - 1);
      await page.keyboard.press('Home');
      expect((await active()).index).toBe(0);
      // Tab reaches the cards' buttons too.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('BUTTON');
    } finally {
      await page.close();
      await served.stop();
    }
  });

  it('shows a run whose session ended without its end record as incomplete, never running', async () => {
    // The agent died mid-call: the stream stops before Claude's result; serve closes the session.
    const served = await serve(['fixtures/claude/missing-result.jsonl']);
    const page = await browser.newPage();
    try {
      await page.goto(served.origin);
      await ended(page);
      await page.waitForFunction(
        () => document.querySelector('.row.run .state')?.textContent === 'incomplete',
        null,
        { timeout: 20_000 },
      );
      expect(await page.evaluate(() => document.querySelector('.row.run')?.className)).toContain(
        'status-incomplete',
      );
      expect(await page.locator('.run-end').textContent()).toContain('run 1 incomplete');
    } finally {
      await page.close();
      await served.stop();
    }
  });

  it("reads an event as large as serve writes: a tool's 3 MB output ends its card", async () => {
    // Claude's lines may be 16 MiB: serve writes them whole, past connect()'s default 1 MiB line.
    const big = 'y'.repeat(3 * 1024 * 1024);
    const lines = readFileSync('fixtures/claude/tools.jsonl', 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        const r = JSON.parse(l);
        const result = r.message?.content?.find?.((c: { type?: string }) => c.type === 'tool_result');
        if (result !== undefined && typeof result.content === 'string' && result.is_error !== true)
          result.content = big;
        return JSON.stringify(r);
      });
    const file = join(tmpdir(), `agentwire-big-${process.pid}.jsonl`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const served = await serve(['--format', 'claude', file]);
    const page = await browser.newPage();
    try {
      await page.goto(served.origin);
      await ended(page);
      await page.waitForFunction(() => document.querySelectorAll('.row.tool').length === 3, null, {
        timeout: 20_000,
      });
      const states = await page.evaluate(() =>
        [...document.querySelectorAll('.row.tool .state')].map((s) => s.textContent),
      );
      expect(states).not.toContain('running');
      expect(await page.evaluate(() => document.body.textContent)).toContain('yyyyyyyyyy');
      expect(await page.evaluate(() => document.querySelector('header')?.textContent)).not.toContain(
        'skipped',
      );
    } finally {
      await page.close();
      await served.stop();
      rmSync(file, { force: true });
    }
  });

  it('shows events as they are appended, and after a server restart the same picture, nothing twice', async () => {
    const lines = readFileSync('fixtures/codex/collab.jsonl', 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const port = await freePort();
    const codex = codecFor('codex')!;
    const decoder = codex.createDecoder();
    const enc = new TextEncoder();
    const first = await serve(['--format', 'codex', '-'], { port, stdin: true });
    const page = await browser.newPage();
    let second: typeof first | undefined;
    try {
      await page.goto(first.origin);
      const half = Math.ceil(lines.length / 2);
      let seen = 0;
      for (let i = 0; i < half; i++) {
        first.process.stdin!.write(`${lines[i]}\n`);
        const visible = decoder
          .push(enc.encode(`${lines[i]}\n`))
          .filter((e) => e.type !== 'message.start' && e.type !== 'round.start');
        if (visible.length > 0) {
          await page.waitForFunction((n) => Number(document.body.dataset.events ?? 0) > n, seen, {
            timeout: 30_000,
          });
          seen = await events(page);
        }
      }
      expect(seen).toBeGreaterThan(0);
      await page.waitForFunction(
        () => document.querySelector('.conn')?.getAttribute('data-state') === 'live',
      );
      await first.stop();
      await page.waitForFunction(() =>
        ['reconnecting', 'connecting'].includes(
          document.querySelector('.conn')?.getAttribute('data-state') ?? '',
        ),
      );
      // The restarted server reads its input again from the start (as a log would be reloaded),
      // and has none of it yet when the page comes back: the page's last id is above its stream
      // (409, `unknown_cursor`), and the page starts again from the stream's start (this ran
      // into the error state when the server was slower than the page's retry).
      second = await serve(['--format', 'codex', '-'], { port, stdin: true });
      await page.waitForFunction(
        () => document.querySelector('.conn')?.getAttribute('data-state') === 'live',
        null,
        { timeout: 60_000 },
      );
      for (const line of lines) second.process.stdin!.write(`${line}\n`);
      second.process.stdin!.end();
      await ended(page);
      const fresh = await browser.newPage();
      await fresh.goto(second.origin);
      await ended(fresh);
      expect(await events(page)).toBe(await events(fresh));
      const [a, b] = await Promise.all([picture(page), picture(fresh)]);
      expect(a).toEqual(b);
      expect(a.text.split('Found one off-by-one in scan() at line 88.').length).toBe(
        b.text.split('Found one off-by-one in scan() at line 88.').length,
      );
      await fresh.close();
    } finally {
      await page.close();
      await first.stop();
      await second?.stop();
    }
  }, 180_000);
});
