import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
const child = spawn(process.execPath, ['dist/cli.js', 'serve', '--port', '4796', '/tmp/long.sse'], { stdio: ['ignore', 'ignore', 'inherit'] });
const t = Date.now();
await new Promise((r) => setTimeout(r, 1000));
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const p = await b.newPage();
p.on('console', (m) => console.log('console', m.text()));
await p.goto('http://127.0.0.1:4796/');
for (let i = 0; i < 15; i++) {
  await new Promise((r) => setTimeout(r, 2000));
  const s = Date.now();
  console.log((Date.now() - t) / 1000, await p.evaluate(() => [document.body.dataset.events, document.querySelector('.conn').textContent]), 'eval took', Date.now() - s);
}
child.kill(); await b.close();
