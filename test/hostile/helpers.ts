import { expect, test } from 'vitest';
import type { Codec, DecodeOptions } from '../../src/codec';
import { type Diagnostic, isAgentwireError } from '../../src/diagnostics';
import { type IncompleteLinePolicy, type LineMode, LineSplitter } from '../../src/framing/lines';
import type { AgentEvent } from '../../src/model';

/** A chunk of a case: text (encoded as UTF-8) or exact bytes. */
export type Chunk = string | number[] | Uint8Array;

const utf8 = new TextEncoder();

/** The bytes of one chunk. */
export function bytesOf(chunk: Chunk): Uint8Array {
  if (typeof chunk === 'string') return utf8.encode(chunk);
  return chunk instanceof Uint8Array ? chunk : Uint8Array.from(chunk);
}

/** All chunks joined into one byte array. */
export function joinChunks(chunks: readonly Chunk[]): Uint8Array {
  const parts = chunks.map(bytesOf);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `[code, line, offset]`: how a case pins a diagnostic. */
export type DiagAt = [Diagnostic['code'], number | undefined, number | undefined];

/** Diagnostics reduced to what a case pins. */
export const at = (ds: readonly Diagnostic[]): DiagAt[] => ds.map((d) => [d.code, d.line, d.offset]);

/** What the line splitter made of an input. */
export interface SplitOutcome {
  lines: Array<[string, number, number]>;
  diagnostics: DiagAt[];
}

/** Runs the line splitter over `chunks` and ends it with `policy`. */
export function split(
  chunks: readonly Chunk[],
  options: { mode?: LineMode; maxLineBytes?: number } = {},
  policy: IncompleteLinePolicy = 'deliver',
): SplitOutcome & { splitter: LineSplitter } {
  const lines: SplitOutcome['lines'] = [];
  const diagnostics: Diagnostic[] = [];
  const splitter = new LineSplitter(
    { line: (t, l, o) => lines.push([t, l, o]), diagnostic: (d) => diagnostics.push(d) },
    options,
  );
  for (const c of chunks) splitter.push(typeof c === 'string' ? c : bytesOf(c));
  splitter.end(policy);
  return { lines, diagnostics: at(diagnostics), splitter };
}

/** What a codec's push decoder made of an input. */
export interface DecodeOutcome {
  events: AgentEvent[];
  diagnostics: Diagnostic[];
}

/**
 * Feeds `chunks` to a push decoder and ends it. Asserts the policy on the way: nothing but an
 * {@link AgentwireError} may escape (and that only in strict mode), every diagnostic of a
 * decoder names its line and byte offset.
 */
export function decode<D extends DecodeOptions>(
  codec: Codec<D>,
  chunks: readonly Chunk[],
  options: D = {} as D,
): DecodeOutcome {
  const diagnostics: Diagnostic[] = [];
  const events: AgentEvent[] = [];
  const decoder = codec.createDecoder({ ...options, onDiagnostic: (d: Diagnostic) => diagnostics.push(d) });
  try {
    for (const c of chunks) events.push(...decoder.push(typeof c === 'string' ? c : bytesOf(c)));
    events.push(...decoder.end());
  } catch (error) {
    if (options.strict === true && isAgentwireError(error)) throw error;
    throw new Error(`a decoder threw ${String(error)}`, { cause: error });
  }
  for (const d of diagnostics) {
    expect(Number.isInteger(d.line), `line of ${d.message}`).toBe(true);
    expect(Number.isInteger(d.offset), `offset of ${d.message}`).toBe(true);
  }
  return { events, diagnostics };
}

/** Each byte its own chunk. */
export function byteByByte(chunks: readonly Chunk[]): Uint8Array[] {
  return Array.from(joinChunks(chunks), (b) => Uint8Array.of(b));
}

/** Events without provenance: what an event says, not where it came from. */
export function bare(events: readonly AgentEvent[]): unknown[] {
  return events.map((e) => {
    const { provenance: _p, ...rest } = e;
    return rest;
  });
}

/** `type@line` per event: the shape of a decoded stream. */
export const shape = (events: readonly AgentEvent[]): string[] =>
  events.map((e) => `${e.type}@${e.provenance?.line ?? '?'}`);

/** True while nobody has added an enumerable key to `Object.prototype`. */
export function prototypeIsClean(): boolean {
  const probe = {} as Record<string, unknown>;
  for (const _k in probe) return false;
  return probe.polluted === undefined && (Object.prototype as Record<string, unknown>).polluted === undefined;
}

/**
 * A catalogue case that documents a defect (a `BUG:` comment says which): expected to fail until
 * the codec is fixed. `SHOW_BUGS=1 npx vitest run test/hostile` runs them as plain tests to see
 * how they fail.
 */
export const bugTest: typeof test.fails =
  process.env.SHOW_BUGS === '1' ? (test as typeof test.fails) : test.fails;

/** Text that breaks careless writers: every writer must give each back exactly (writers.test.ts, every-writer.test.ts). */
export const HOSTILE: Record<string, string> = {
  'C0 controls and DEL': '\0\x01\x07\b\t\v\f\x1b\x1f\x7f',
  'CR, LF, CRLF': 'a\rb\nc\r\nd',
  'SSE field injection': '\r\nevent: x\r\nid: 666\n\ndata: {}\n\n',
  'lone high surrogate': 'a\uD800b',
  'lone low surrogate': 'a\uDFFFb',
  'reversed pair': '\uDC00\uD800',
  'U+2028 and U+2029': 'a\u2028b\u2029c',
  '</script> and a comment': '</script><script>alert(1)</script><!--',
  'quotes and backslashes': '"\\"\\\\u0000\'',
  'BOM and U+FFFD': '\uFEFF\uFFFD',
  'astral and combining': '😀e\u0301',
};
