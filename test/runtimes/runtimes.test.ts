import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listFixtures } from '../../src/node/fixtures';

// The README says the browser entries run in Bun and Deno too: this holds them to it. The same
// script (smoke.mjs) drives the built entries over every shipped fixture (parse, push in
// irregular chunks, both Web stream shapes, stringify, encode, detection, conversion to every
// other format) and over hostile bytes through every codec, in Node, Bun and Deno; each case's
// result must be the same to the byte as Node's. Bun runs JavaScriptCore, Deno another V8, each
// with its own TextDecoder, Web streams and WebCrypto. Both come from the npm registry as pinned
// dev dependencies (`bun`, `deno`), so CI needs nothing else.

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const script = join(import.meta.dirname, 'smoke.mjs');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

interface Runtime {
  name: string;
  command: string;
  args: string[];
}

const RUNTIMES: Runtime[] = [
  { name: 'Bun', command: bin('bun'), args: [script] },
  // No network, no prompt, read access only: what a page or worker would have.
  { name: 'Deno', command: bin('deno'), args: ['run', '--no-prompt', '--allow-read', script] },
];

// Deno would otherwise check for a newer release over the network.
const env = { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };

let dir: string;
let job: string;
let node: Map<string, string>;

async function smoke(command: string, args: string[], extra: string[] = []): Promise<string> {
  const { stdout } = await run(command, [...args, job, ...extra], {
    cwd: root,
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

function lines(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const tab = line.indexOf('\t');
    out.set(line.slice(0, tab), line.slice(tab + 1));
  }
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentwire-runtimes-'));
  job = join(dir, 'job.json');
  const fixtures = listFixtures().map((f) => ({
    format: f.format,
    file: basename(f.path),
    bytes: readFileSync(f.path).toString('base64'),
  }));
  writeFileSync(job, JSON.stringify({ fixtures }));
  node = lines(await smoke(process.execPath, [script]));
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('Node: every case runs, none throws', () => {
  // Every fixture (108 files across 12 formats) gives 7 cases and one per other format; the hostile
  // inputs 25 each.
  expect(node.size).toBeGreaterThan(2000);
  const threw = [...node].filter(([, v]) => v.startsWith('threw'));
  expect(threw).toEqual([]);
});

describe.each(RUNTIMES)('$name', (rt) => {
  test('every case gives what it gives in Node, to the byte', async () => {
    const got = lines(await smoke(rt.command, rt.args));
    expect([...got.keys()]).toEqual([...node.keys()]);
    const differ = [...node.keys()].filter((k) => got.get(k) !== node.get(k));
    // The first few differences in full, so a failure shows what differs, not two hashes.
    for (const key of differ.slice(0, 3)) {
      const theirs = await smoke(rt.command, rt.args, ['--show', key]);
      const ours = await smoke(process.execPath, [script], ['--show', key]);
      expect(theirs, key).toBe(ours);
    }
    expect(differ).toEqual([]);
  });
});
