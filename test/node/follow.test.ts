import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { followFile } from '../../src/node/follow';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function collectUntil(
  path: string,
  steps: Array<() => void>,
  done: (text: string) => boolean,
): Promise<{ text: string; restarts: string[] }> {
  const controller = new AbortController();
  const restarts: string[] = [];
  let text = '';
  const timer = setTimeout(() => controller.abort(), 10_000);
  const reader = (async () => {
    for await (const chunk of followFile(path, {
      signal: controller.signal,
      pollMs: 20,
      onRestart: (r) => restarts.push(r),
    })) {
      text += new TextDecoder().decode(chunk);
      if (done(text)) controller.abort();
    }
  })();
  for (const step of steps) {
    await new Promise((r) => setTimeout(r, 80));
    step();
  }
  await reader;
  clearTimeout(timer);
  return { text, restarts };
}

test('waits for the file, then follows appends, truncation, regrowth and replacement', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentwire-follow-'));
  dirs.push(dir);
  const path = join(dir, 'trace.jsonl');
  const { text, restarts } = await collectUntil(
    path,
    [
      () => writeFileSync(path, 'a1\n'),
      () => appendFileSync(path, 'a2\npart'),
      () => appendFileSync(path, 'ial\n'),
      () => truncateSync(path, 0),
      () => writeFileSync(path, 'b1\nb2 is a longer line than before, past the old position\n'),
      () => {
        writeFileSync(`${path}.new`, 'c1\n');
        renameSync(`${path}.new`, path);
      },
    ],
    (t) => t.endsWith('c1\n'),
  );
  expect(text).toBe('a1\na2\npartial\nb1\nb2 is a longer line than before, past the old position\nc1\n');
  expect(restarts).toEqual(['truncated', 'replaced']);
});

test('stops when the signal aborts, even while waiting for a missing file', async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const chunks: Uint8Array[] = [];
  for await (const c of followFile('/nonexistent/agentwire/x', { signal: controller.signal, pollMs: 10 }))
    chunks.push(c);
  expect(chunks).toEqual([]);
});

test('a truncation regrown past the old position between two looks is caught by the fingerprint', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentwire-follow-'));
  dirs.push(dir);
  const path = join(dir, 'trace.jsonl');
  writeFileSync(path, 'old line one\n');
  const { text, restarts } = await collectUntil(
    path,
    [() => writeFileSync(path, 'NEW LINE ONE, LONGER THAN THE OLD ONE\n')],
    (t) => t.endsWith('OLD ONE\n'),
  );
  expect(text).toBe('old line one\nNEW LINE ONE, LONGER THAN THE OLD ONE\n');
  expect(restarts).toEqual(['truncated']);
});
