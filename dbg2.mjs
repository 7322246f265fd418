import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
const child = spawn(process.execPath, ['dist/cli.js', 'serve', '--port', '4795', '/tmp/long.sse'], { stdio: ['ignore', 'ignore', 'ignore'] });
await new Promise((r) => setTimeout(r, 1000));
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const p = await b.newPage();
const c = await p.context().newCDPSession(p);
await c.send('Profiler.enable'); await c.send('Profiler.setSamplingInterval', { interval: 500 }); await c.send('Profiler.start');
await p.goto('http://127.0.0.1:4795/');
await p.waitForFunction(() => document.body.dataset.events === '100000', null, { timeout: 120000, polling: 500 });
const { profile } = await c.send('Profiler.stop');
const self = new Map(); const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const dt = profile.timeDeltas; const counts = new Map();
profile.samples.forEach((id, i) => counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)));
for (const [id, t] of counts) { const n = byId.get(id); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}:${n.callFrame.columnNumber}`; self.set(k, (self.get(k) ?? 0) + t); }
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log('total ms', Math.round(total / 1000));
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(Math.round(t / 1000), k);
child.kill(); await b.close();
