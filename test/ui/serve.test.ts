import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { verifyEvents } from '@ag-ui/client';
import { parseJsonEventStream, readUIMessageStream, type UIMessageChunk, uiMessageChunkSchema } from 'ai';
import { from, lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { agui, aisdk } from '../../src/all';

// `agentwire serve --as ag-ui|ai-sdk`: a running agent (any input format) served to a UI
// protocol's client, persisted before it is emitted, resumable after the last id seen.
const CLI = resolve('dist/cli.js');
let dir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'ignore' });
  dir = mkdtempSync(join(tmpdir(), 'agentwire-serve-as-'));
}, 120_000);
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

async function serve(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const deadline = Date.now() + 15_000;
  while (!err.includes('input ended')) {
    if (Date.now() > deadline) throw new Error(`timed out: ${err}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return /(http:\/\/127\.0\.0\.1:\d+\/\S+\/stream)/.exec(err)![1]!;
}

describe('agentwire serve --as', () => {
  test('ai-sdk: a POST gets a UI message stream useChat reads; the log holds it first; Last-Event-ID resumes', async () => {
    const log = join(dir, 'ui.jsonl');
    const url = await serve([
      '--as',
      'ai-sdk',
      '--log',
      log,
      '--',
      'cat',
      'fixtures/hep/tool-then-text.jsonl',
    ]);
    const response = await fetch(url, { method: 'POST', body: JSON.stringify({ messages: [] }) });
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const body = await response.text();
    const chunks = parseJsonEventStream({ stream: new Response(body).body!, schema: uiMessageChunkSchema });
    const valid = chunks.pipeThrough(
      new TransformStream<{ success: boolean; value?: UIMessageChunk }, UIMessageChunk>({
        transform(c, controller) {
          expect(c.success).toBe(true);
          controller.enqueue(c.value!);
        },
      }),
    );
    let text = '';
    for await (const m of readUIMessageStream({ stream: valid })) {
      text = m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    }
    expect(text).toContain('Fixed `sum`');
    const served = aisdk.parse(body);
    expect(served.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    // persisted before emitted: the log is the same stream as JSON Lines
    const persisted = aisdk.parse(readFileSync(log));
    expect(persisted.events.map((e) => e.type)).toEqual(served.events.map((e) => e.type));
    const ids = [...body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    const resumed = await (await fetch(url, { headers: { 'last-event-id': '3' } })).text();
    expect([...resumed.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual(ids.slice(3));
    expect((await fetch(url, { headers: { 'last-event-id': String(ids.at(-1)) } })).status).toBe(204);
  });

  test('ag-ui: a nativeharness stream served as AG-UI that the verifier accepts', async () => {
    const url = await serve(['--as', 'ag-ui', 'fixtures/nativeharness/approvals.sse']);
    const body = await (await fetch(url, { method: 'POST', body: '{}' })).text();
    const parsed = agui.parse(body);
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const records = [...body.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
    expect(records[0].type).toBe('RUN_STARTED');
    await lastValueFrom(from(records as never[]).pipe(verifyEvents(false), toArray()));
  });

  // A live session (the agent still running): the POST's request closes once its body is read,
  // and the stream used to stop there, serving the backlog and never the rest nor its end.
  test.each([['ai-sdk'], ['ag-ui']])(
    '%s: a POST during a live run gets what comes later, then the end',
    async (as) => {
      const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--as', as, '--quiet', '-'], {
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      children.push(child);
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
      });
      const lines = readFileSync('fixtures/hep/tool-then-text.jsonl', 'utf8').split('\n');
      child.stdin.write(`${lines.slice(0, 3).join('\n')}\n`);
      const deadline = Date.now() + 15_000;
      while (!err.includes('serving')) {
        if (Date.now() > deadline) throw new Error(`timed out: ${err}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const url = /(http:\/\/127\.0\.0\.1:\d+\/\S+\/stream)/.exec(err)![1]!;
      const response = await fetch(url, { method: 'POST', body: '{}', signal: AbortSignal.timeout(15_000) });
      expect(response.status).toBe(200);
      child.stdin.end(lines.slice(3).join('\n'));
      const body = await response.text();
      const codec = as === 'ai-sdk' ? aisdk : agui;
      const served = codec.parse(body).events;
      expect(served.map((e) => (e.type === 'text.delta' ? e.text : '')).join('')).toContain('Fixed `sum`');
      expect(served.at(-1)).toMatchObject({ type: 'run.end', status: 'completed' });
    },
  );

  test('--as takes ag-ui or ai-sdk only (exit 64)', () => {
    const r = spawnSync(process.execPath, [CLI, 'serve', '--as', 'hep', 'x'], { encoding: 'utf8' });
    expect(r.status).toBe(64);
    expect(r.stderr).toContain('--as takes ag-ui or ai-sdk');
  });
});
