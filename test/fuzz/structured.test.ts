import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { CheckingCodec, Codec } from '../../src/codec';
import { convert } from '../../src/convert';
import { type Diagnostic, FORMATS, type Format, isAgentwireError } from '../../src/diagnostics';
import { codecFor } from '../../src/formats/index';
import { type AgentEvent, validateEvent } from '../../src/model';
import { AGENT_EVENT_TYPES, EVENT_CHECKS, isAgentEvent } from '../../src/model-guard';
import { chunkAt } from '../golden';
import { FUZZ_RUNS } from '../runs';
import { corpus, mutate, mutations, pools, type Stream, writeStream } from './structured';
import { viewAndTrace } from './views';

// Structure-aware fuzzing of every format. Every record of every fixture (and of every reference
// capture, when ../shared/captures is there) is read as JSON and mutated at the JSON level (a
// value of another type, a key deleted, added or repeated, edge numbers, long strings, a line
// filled to one byte short of the line bound, to it or one past it, deep nesting, a record's
// `type` swapped for another of its format, values moved between records, a BOM, a lone CR, a tab
// or a NUL around a record, records dropped, repeated, moved, the stream cut), so the inputs
// reach each format's mapping code, not only its JSON parser (structured.ts makes them). Each
// mutated stream is decoded in one chunk and in random chunks, in strict mode, checked (whole, and
// by the push checker in the random chunks), converted to every format (every other's output read
// back; its own writer's refusals placed too), and its events rendered as a timeline and traced. The promise: nothing throws (strict
// mode: AgentwireError only), every diagnostic and event is placed inside the input, every event
// is a well-formed canonical event, the chunking changes nothing (for the decoder and the
// checker), and every writer's output reads back without an error of its own.
// FUZZ_RUNS scales the case count (cases per format: FUZZ_RUNS / 8, at least 20).

const RUNS = Math.max(20, Math.floor(FUZZ_RUNS / 8));

// biome-ignore lint/suspicious/noExplicitAny: the codecs differ only in option types
type AnyCodec = Codec<any, any> & Pick<CheckingCodec<any>, 'check' | 'createChecker'>;

const STREAMS = corpus(FORMATS);
const POOLS = pools(STREAMS);
const enc = new TextEncoder();

function optionsOf(s: Stream): Record<string, unknown> {
  return s.format === 'nativeharness' || s.format === 'ag-ui' || s.format === 'ai-sdk'
    ? { framing: s.framing }
    : {};
}

// A finding about the whole stream (a check's "no tools declared") has no line; every other is placed.
function placed(ds: readonly Diagnostic[], size: number, what: string, whole = false): void {
  for (const d of ds) {
    if (d.code === 'loss' || (whole && d.line === undefined && d.offset === undefined)) continue;
    expect(Number.isInteger(d.line) && d.line! >= 1, `${what}: ${d.message}`).toBe(true);
    expect(Number.isInteger(d.offset) && d.offset! >= 0 && d.offset! <= size, `${what}: ${d.message}`).toBe(
      true,
    );
    expect(d.message).toMatch(/\S/);
  }
}

function wellFormed(events: readonly AgentEvent[], size: number, what: string): void {
  for (const e of events) {
    if (!isAgentEvent(e)) {
      const issues = (validateEvent(e) as { error?: { issues: unknown } }).error?.issues;
      expect.fail(
        `${what}: not a canonical event: ${JSON.stringify(issues)} in ${JSON.stringify(e).slice(0, 300)}`,
      );
    }
    const p = e.provenance;
    if (p === undefined) continue;
    expect(Number.isInteger(p.line) && p.line >= 1, what).toBe(true);
    expect(Number.isInteger(p.offset) && p.offset >= 0 && p.offset <= size, what).toBe(true);
  }
}

// A line or SSE event past its bound is reported as soon as it crosses it: its message gives the
// whole size when it arrived in one chunk and "at least N bytes so far" otherwise.
const wording = (ds: Diagnostic[]) =>
  ds.map((d) => (d.code === 'line_too_long' || d.code === 'event_too_large' ? { ...d, message: '' } : d));

// A total order (line, then the rest) for comparing diagnostics found in different orders.
const order = (d: Diagnostic) =>
  JSON.stringify([d.line ?? Number.MAX_SAFE_INTEGER, d.offset, d.code, d.message, d.severity]);
const sorted = (ds: readonly Diagnostic[]) => [...ds].sort((a, b) => order(a).localeCompare(order(b)));

function decode(codec: AnyCodec, chunks: readonly Uint8Array[], options: Record<string, unknown>) {
  const diagnostics: Diagnostic[] = [];
  const decoder = codec.createDecoder({ ...options, onDiagnostic: (d: Diagnostic) => diagnostics.push(d) });
  const events: AgentEvent[] = [];
  for (const c of chunks) events.push(...decoder.push(c));
  events.push(...decoder.end());
  return { events, diagnostics };
}

// The writers whose conversion to their own format still breaks the promise (the case that shows
// each is what a run with the entry removed prints). None now: highbar's (a held call's start
// refused at the stream's end for a time past a double's range) is fixed, and
// test/highbar/refused-event.test.ts holds it.
const SAME_OPEN: ReadonlySet<Format> = new Set<Format>([]);

/** Every consumer of one mutated stream, and every promise about it. */
function exercise(s: Stream, bytes: Uint8Array, cuts: number[]): void {
  const codec = codecFor(s.format) as AnyCodec;
  const options = optionsOf(s);
  const whole = decode(codec, [bytes], options);
  placed(whole.diagnostics, bytes.length, 'decode');
  wellFormed(whole.events, bytes.length, 'decode');
  const chunked = decode(codec, chunkAt(bytes, cuts), options);
  expect(chunked.events).toEqual(whole.events);
  expect(wording(chunked.diagnostics)).toEqual(wording(whole.diagnostics));

  try {
    decode(codec, [bytes], { ...options, strict: true });
  } catch (error) {
    expect(isAgentwireError(error), String(error)).toBe(true);
  }

  const checked = codec.check(bytes, options);
  placed(checked, bytes.length, 'check', true);
  // The push checker, in the same random chunks, finds what check(input) finds (in line order
  // within each chunk's findings, so compared in one total order).
  const checker = codec.createChecker(options);
  const found: Diagnostic[] = [];
  for (const c of chunkAt(bytes, cuts)) found.push(...checker.push(c));
  found.push(...checker.end());
  expect(sorted(wording(found)), 'createChecker in chunks').toEqual(sorted(wording(checked)));

  const errors = (ds: readonly Diagnostic[]) =>
    ds.filter((d) => d.severity === 'error').map((d) => d.message);
  const inputErrors = errors(whole.diagnostics);
  for (const to of FORMATS) {
    if (to === s.format && SAME_OPEN.has(to)) continue;
    const diagnostics: Diagnostic[] = [];
    const r = convert(bytes, {
      from: s.format,
      to,
      decode: options,
      onDiagnostic: (d) => diagnostics.push(d),
      clock: () => 1_767_225_600_000,
      idSource: () => 'id',
    });
    placed(diagnostics, bytes.length, `convert to ${to}`);
    // The conversion's errors are the input's, and the writer's refusals of events it cannot
    // write as given (a value JSON cannot hold, a time the format cannot): each names the event
    // refused and one of its own fields, never another event's (a refusal that took a
    // different event down with it).
    for (const m of errors(diagnostics)) {
      if (inputErrors.includes(m)) continue;
      const refused = /^line \d+ \(byte \d+\): ([\w.]+) not written: ([\w.]+)/.exec(m);
      expect(refused, `convert to ${to}: ${m}`).not.toBeNull();
      const [, type, path] = refused!;
      // A path that starts with another event type's name, not a field of the refused event's.
      const own = Object.keys((EVENT_CHECKS[type as AgentEvent['type']] as { object: object }).object);
      const mine = path!.startsWith(`${type}.`) || own.includes(path!.split('.')[0]!);
      const other = !mine && AGENT_EVENT_TYPES.some((t) => path!.startsWith(`${t}.`));
      expect(other, `convert to ${to}: ${m}`).toBe(false);
    }
    // Its own format's writer writes the lines it keeps as they came, the bad ones too: what it
    // wrote reads back with the input's errors, not none. Its refusals are placed (above).
    if (to === s.format) continue;
    // What a writer writes reads back without an error, under bounds wide enough for what it
    // adds around a value already near the reader's (a 1 MB string in a 1 MiB line, a value
    // nested near the depth bound, carried one or two levels deeper).
    const back = codecFor(to)!.parse(r.output, { maxLineBytes: 64 * 1024 * 1024, maxDepth: 256 });
    expect(errors(back.diagnostics), `${to} reads back what it wrote`).toEqual([]);
    wellFormed(back.events, r.output.length * 4, `${to} read back`);
  }

  viewAndTrace(whole.events);
}

const LAST = process.env.STRUCTURED_FUZZ_LAST;
const cuts = fc.array(fc.nat({ max: 4000 }), { maxLength: 8 });

describe('structured fuzz: JSON-level mutations of every fixture and capture', () => {
  test('every format has streams to mutate', () => {
    expect(new Set(STREAMS.map((s) => s.format))).toEqual(new Set(FORMATS));
  });

  for (const format of FORMATS) {
    const streams = STREAMS.filter((s) => s.format === format);
    test(`${format}: decode, chunks, strict, check, convert, timeline and tracer keep their promises`, () => {
      fc.assert(
        fc.property(fc.constantFrom(...streams), mutations, fc.boolean(), cuts, (s, ms, crlf, at) => {
          const { stream, cut } = mutate(s, ms, POOLS.get(format)!);
          const bytes = enc.encode(writeStream(stream, crlf, cut));
          // A case that kills the process (a fatal V8 error) leaves its input behind to read.
          if (LAST !== undefined) writeFileSync(LAST, bytes);
          exercise(stream, bytes, at);
        }),
        { numRuns: RUNS },
      );
    });
  }
});
