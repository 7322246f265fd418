// Regenerates the viewer screenshots in docs/ (shown in the README):
//   npm run build && node test/browser/screenshots.mjs
// Each fixture is served by the built CLI and drawn by headless chromium (Debian's package).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';

const ROOT = resolve(import.meta.dirname, '../..');
const SHOTS = [
  ['fixtures/codex/collab.jsonl', 'docs/viewer-codex-collab.png', false],
  ['fixtures/nativeharness/approvals.sse', 'docs/viewer-nativeharness-approvals.png', true],
  ['fixtures/opencode/reasoning.jsonl', 'docs/viewer-opencode-reasoning.png', false],
];

function serve(file, port) {
  const child = spawn(process.execPath, ['dist/cli.js', 'serve', '--port', String(port), file], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((done, fail) => {
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      err += d;
      if (err.includes('viewer at')) done(child);
    });
    child.once('exit', (code) => fail(new Error(`serve exited ${code}: ${err}`)));
  });
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
try {
  let port = 4731;
  for (const [file, out, open] of SHOTS) {
    const child = await serve(file, ++port);
    const page = await browser.newPage({ viewport: { width: 1000, height: 760 }, colorScheme: 'light' });
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => document.querySelector('.conn')?.getAttribute('data-state') === 'ended');
    // The first tool card opened, as a reader would; the top of the log in view.
    if (open) await page.evaluate(() => document.querySelector('.tool-head')?.click());
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: resolve(ROOT, out), fullPage: false });
    await page.close();
    child.kill();
    process.stdout.write(`${out}\n`);
  }
} finally {
  await browser.close();
}
