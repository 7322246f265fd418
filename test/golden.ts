import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';

/**
 * Compares `value` (serialised as 2-space JSON plus a newline) with the committed golden file,
 * byte for byte. `UPDATE_GOLDENS=1 npx vitest run` rewrites the files instead (review the diff).
 */
export function expectGolden(path: string, value: unknown): void {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env.UPDATE_GOLDENS === '1') {
    writeFileSync(path, text);
    return;
  }
  if (!existsSync(path)) throw new Error(`missing golden file ${path}: run UPDATE_GOLDENS=1 npx vitest run`);
  expect(text).toBe(readFileSync(path, 'utf8'));
}

/** Compares text with a committed golden text file, byte for byte (same update switch). */
export function expectGoldenText(path: string, text: string): void {
  if (process.env.UPDATE_GOLDENS === '1') {
    writeFileSync(path, text);
    return;
  }
  if (!existsSync(path)) throw new Error(`missing golden file ${path}: run UPDATE_GOLDENS=1 npx vitest run`);
  expect(text).toBe(readFileSync(path, 'utf8'));
}

/** Splits `bytes` at the given cut points (sorted, deduplicated, within range). */
export function chunkAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(bytes.length, c))))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  out.push(bytes.subarray(prev));
  return out;
}
