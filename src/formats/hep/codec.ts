// The HEP v1 codec object (re-exported by index.ts). It lives apart from index.ts, which also
// re-exports the wire records' zod schemas, so that the codec registry and the CLI, importing
// this file, never load zod (docs/performance.md "The CLI against jq").
import {
  type CheckingCodec,
  type CheckingReader,
  type CodecWriter,
  createReader,
  createWriter,
  joinCodec,
  lineChunkDecoder,
  withCheckers,
} from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { hepRules } from './check';
import { createHepRecordDecoder, type HepDecodeOptions } from './decode';
import { createHepEncoder, type HepEncodeOptions } from './encode';
import { HEP, HEP_HELD_INPUT } from './wire';

/** The HEP v1 codec plus its stream checker. */
export interface HepCodec extends CheckingCodec<HepDecodeOptions, HepEncodeOptions> {
  /**
   * Validates a whole HEP stream: every decoder diagnostic (schema, JSON, bounds on lines) plus
   * violations of HEP's ordering guarantees (`order`) and writer bounds. Empty means conforming.
   */
  check(input: string | Uint8Array, options?: HepDecodeOptions): Diagnostic[];
}

/**
 * The reading half of {@link hep}: `parse`, `decode`, `createDecoder`, the decoder streams and the
 * checkers, the same as `hep`'s. Pick it to read HEP without writing it (a viewer): a bundle that
 * imports only `hepReader` holds no byte of the HEP writer.
 *
 * @example
 * ```ts
 * import { hepReader } from 'agentwire/hep';
 * const { events, diagnostics } = hepReader.parse(text);
 * ```
 */
export const hepReader: CheckingReader<HepDecodeOptions> = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ createReader<HepDecodeOptions>({
    format: HEP,
    createChunkDecoder: (options, sink) =>
      lineChunkDecoder(HEP, 'jsonl', options, sink, createHepRecordDecoder(options, sink)),
    heldInput: HEP_HELD_INPUT,
  }),
  hepRules,
);

/**
 * The writing half of {@link hep}: `stringify`, `encode`, `createEncoder` and `encoderStream`, the
 * same as `hep`'s. Pick it to write HEP without reading it (an emitter): a bundle that imports
 * only `hepWriter` holds no byte of the HEP decoder or checker.
 *
 * @example
 * ```ts
 * import { hepWriter } from 'agentwire/hep';
 * const text = hepWriter.stringify(events);
 * ```
 */
export const hepWriter: CodecWriter<HepEncodeOptions> = /* @__PURE__ */ createWriter<HepEncodeOptions>({
  format: HEP,
  createEncoder: createHepEncoder,
});

/**
 * HEP v1 — the JSON Lines event stream of the `fa` CLI agent (`fa --output events`):
 * {@link hepReader} and {@link hepWriter} in one object.
 *
 * @example
 * ```ts
 * import { hep } from 'agentwire/hep';
 * const { events, diagnostics } = hep.parse(text);
 * const bytes = hep.stringify(events); // === text for a conforming stream
 * ```
 */
export const hep: HepCodec = /* @__PURE__ */ joinCodec(hepReader, hepWriter);
