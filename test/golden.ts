import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Decoder } from '../src/codec';
import type { AgentEvent } from '../src/model';

// Top-level event keys in a fixed order (type first, provenance last, the rest sorted), so a
// golden pins what an event holds, not the order a decoder happened to assign its properties.
// Nested objects keep their order: there it is data (wire key order, extra fields).
function normalizeEvent(event: unknown): unknown {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return event;
  const e = event as Record<string, unknown>;
  const keys = Object.keys(e)
    .filter((k) => k !== 'type' && k !== 'provenance')
    .sort();
  const out: Record<string, unknown> = {};
  if ('type' in e) out.type = e.type;
  for (const k of keys) out[k] = e[k];
  if ('provenance' in e) out.provenance = e.provenance;
  return out;
}

/** Normalises `{events, diagnostics}` (or an event array) for a golden file. */
export function normalizeForGolden(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeEvent);
  if (typeof value === 'object' && value !== null && Array.isArray((value as { events?: unknown }).events)) {
    const v = value as { events: unknown[] };
    return { ...v, events: v.events.map(normalizeEvent) };
  }
  return value;
}

/**
 * Compares `value` (serialised as 2-space JSON plus a newline) with the committed golden file,
 * byte for byte. Event arrays (and `{events}`) are normalised first ({@link normalizeForGolden}).
 * `UPDATE_GOLDENS=1 npx vitest run` rewrites the files instead (review the diff).
 */
export function expectGolden(path: string, value: unknown): void {
  const text = `${JSON.stringify(normalizeForGolden(value), null, 2)}\n`;
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

/**
 * Holds that `bytes` decode to `expected` whatever the chunking: 40 random cuttings, then byte by
 * byte. `createDecoder` makes a fresh push decoder for each.
 */
export function expectSameAtAnyChunking(
  createDecoder: () => Decoder,
  bytes: Uint8Array,
  expected: AgentEvent[],
): void {
  fc.assert(
    fc.property(fc.array(fc.nat({ max: bytes.length }), { maxLength: 12 }), (cuts) => {
      const decoder = createDecoder();
      const events = chunkAt(bytes, cuts).flatMap((c) => decoder.push(c));
      events.push(...decoder.end());
      expect(events).toEqual(expected);
    }),
    { numRuns: 40 },
  );
  const decoder = createDecoder();
  const events: AgentEvent[] = [];
  for (let i = 0; i < bytes.length; i++) events.push(...decoder.push(bytes.subarray(i, i + 1)));
  events.push(...decoder.end());
  expect(events).toEqual(expected);
}
