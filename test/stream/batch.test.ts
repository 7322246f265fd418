import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Codec } from '../../src/codec';
import type { Diagnostic } from '../../src/diagnostics';
import { codecs } from '../../src/formats/index';
import type { AgentEvent } from '../../src/model';
import { chunkAt } from '../golden';
import { FUZZ_RUNS } from '../runs';

// batchDecoderStream() hands out each chunk's events as one array: concatenated, the arrays are
// exactly what decoderStream() hands out one by one (and what parse() returns), with the same
// diagnostics in the same order, whatever the chunking; and no array is empty.

interface Streamed {
  events: AgentEvent[];
  diagnostics: Diagnostic[];
  batches: number;
}

function source(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

async function* read<T>(stream: ReadableStream<T>): AsyncGenerator<T> {
  const reader = stream.getReader();
  for (;;) {
    const r = await reader.read();
    if (r.done) return;
    yield r.value;
  }
}

async function perEvent(codec: Codec, chunks: readonly Uint8Array[]): Promise<Streamed> {
  const diagnostics: Diagnostic[] = [];
  const events: AgentEvent[] = [];
  const stream = source(chunks).pipeThrough(
    codec.decoderStream({ onDiagnostic: (d) => diagnostics.push(d) }),
  );
  for await (const e of read(stream)) events.push(e);
  return { events, diagnostics, batches: events.length };
}

async function batched(codec: Codec, chunks: readonly Uint8Array[]): Promise<Streamed> {
  const diagnostics: Diagnostic[] = [];
  const events: AgentEvent[] = [];
  let batches = 0;
  const stream = source(chunks).pipeThrough(
    codec.batchDecoderStream({ onDiagnostic: (d) => diagnostics.push(d) }),
  );
  for await (const batch of read(stream)) {
    expect(Array.isArray(batch)).toBe(true);
    expect(batch.length).toBeGreaterThan(0);
    batches++;
    for (const e of batch) events.push(e);
  }
  return { events, diagnostics, batches };
}

const fixtures: Array<{ format: string; name: string; bytes: Uint8Array }> = [];
for (const [format, codec] of Object.entries(codecs)) {
  if (codec === undefined) continue;
  let names: string[];
  try {
    names = readdirSync(join('fixtures', format));
  } catch {
    continue;
  }
  for (const name of names.sort()) {
    if (name.endsWith('.golden.json')) continue;
    fixtures.push({ format, name, bytes: readFileSync(join('fixtures', format, name)) });
  }
}

describe('batchDecoderStream()', () => {
  test('there are fixtures of several formats to stream', () => {
    expect(new Set(fixtures.map((f) => f.format)).size).toBeGreaterThan(5);
  });

  test.each(fixtures.map((f) => [`${f.format}/${f.name}`, f] as const))(
    '%s: the batches, concatenated, are the per-event stream at every chunking',
    async (_, { format, bytes }) => {
      const codec = codecs[format as keyof typeof codecs]!;
      const whole = codec.parse(bytes);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat({ max: bytes.length }), { maxLength: 16 }), async (cuts) => {
          const chunks = chunkAt(bytes, cuts);
          const one = await perEvent(codec, chunks);
          const many = await batched(codec, chunks);
          expect(many.events).toEqual(one.events);
          expect(many.diagnostics).toEqual(one.diagnostics);
          expect(many.events).toEqual(whole.events);
          // One array per chunk that completed an event, plus at most one for the end.
          expect(many.batches).toBeLessThanOrEqual(chunks.length + 1);
        }),
        { numRuns: Math.max(10, Math.round(FUZZ_RUNS / 10)) },
      );
    },
  );

  test('byte by byte: every array holds the events of one chunk, in order', async () => {
    const codec = codecs.hep!;
    const f = fixtures.find((x) => x.format === 'hep')!;
    const chunks = chunkAt(
      f.bytes,
      Array.from({ length: f.bytes.length }, (_, i) => i),
    );
    const decoder = codec.createDecoder();
    const expected = chunks.map((c) => decoder.push(c)).filter((b) => b.length > 0);
    const end = decoder.end();
    if (end.length > 0) expected.push(end);
    const got: AgentEvent[][] = [];
    for await (const batch of read(source(chunks).pipeThrough(codec.batchDecoderStream()))) got.push(batch);
    expect(got).toEqual(expected);
  });

  test('strict mode errors the stream, as decoderStream() does', async () => {
    const codec = codecs.hep!;
    const chunks = [new TextEncoder().encode('not json\n')];
    const drain = async (s: ReadableStream<unknown>) => {
      for await (const _ of read(s)) {
        // drain
      }
    };
    await expect(drain(source(chunks).pipeThrough(codec.decoderStream({ strict: true })))).rejects.toThrow();
    await expect(
      drain(source(chunks).pipeThrough(codec.batchDecoderStream({ strict: true }))),
    ).rejects.toThrow();
  });
});
