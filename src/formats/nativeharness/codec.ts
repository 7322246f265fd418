// The nativeharness codec object (re-exported by index.ts). It lives apart from index.ts, which also
// re-exports the wire records' zod schemas, so that the codec registry and the CLI, importing
// this file, never load zod (docs/performance.md "The CLI against jq").
import {
  type CheckingCodec,
  type CheckingReader,
  type CodecWriter,
  createReader,
  createWriter,
  joinCodec,
  withCheckers,
  withIncompleteRuns,
} from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { nativeharnessRules } from './check';
import { createNhChunkDecoder, type NhDecodeOptions } from './decode';
import { createNhEncoder, type NhEncodeOptions } from './encode';
import { NH, NH_HELD_INPUT } from './wire';

/** The nativeharness codec: options pick the framing (`framing`), detected when decoding. */
export interface NativeharnessCodec extends CheckingCodec<NhDecodeOptions, NhEncodeOptions> {
  /**
   * Validates a whole stream or log: every decoder diagnostic (schema, seq order, bounds, SSE
   * framing) plus the protocol's ordering rules ({@link checkNativeharnessEvents}). Empty means
   * conforming.
   */
  check(input: string | Uint8Array, options?: NhDecodeOptions): Diagnostic[];
}

/**
 * The reading half of {@link nativeharness}: `parse`, `decode`, `createDecoder`, the decoder
 * streams and the checkers, the same as `nativeharness`'s. Pick it to read nativeharness without
 * writing it (a viewer): a bundle that imports only `nativeharnessReader` holds no byte of the
 * nativeharness writer.
 */
export const nativeharnessReader: CheckingReader<NhDecodeOptions> = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ createReader<NhDecodeOptions>({
    format: NH,
    createChunkDecoder: createNhChunkDecoder,
    heldInput: NH_HELD_INPUT,
    holdsRecords: true,
  }),
  /* @__PURE__ */ withIncompleteRuns(nativeharnessRules, 'nativeharness', 'its done event'),
);

/**
 * The writing half of {@link nativeharness}: `stringify`, `encode`, `createEncoder` and
 * `encoderStream`, the same as `nativeharness`'s. Pick it to write nativeharness without reading it
 * (an emitter): a bundle that imports only `nativeharnessWriter` holds no byte of the nativeharness
 * decoder or checker.
 */
export const nativeharnessWriter: CodecWriter<NhEncodeOptions> =
  /* @__PURE__ */ createWriter<NhEncodeOptions>({
    format: NH,
    createEncoder: createNhEncoder,
  });

/**
 * nativeharness — the session event envelope of a web harness: SSE (`/stream`), a JSON array
 * (`/events`) or JSON Lines (the persisted log). See docs/protocols/nativeharness.md.
 *
 * @example
 * ```ts
 * import { nativeharness } from 'agentwire/nativeharness';
 * const { events } = nativeharness.parse(sseText); // framing detected
 * const log = nativeharness.stringify(events, { framing: 'jsonl' });
 * ```
 */
export const nativeharness: NativeharnessCodec = /* @__PURE__ */ joinCodec(
  nativeharnessReader,
  nativeharnessWriter,
);
