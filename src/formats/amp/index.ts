import {
  type CheckingCodec,
  type CheckingReader,
  type CodecWriter,
  createLineReader,
  createWriter,
  joinCodec,
  withCheckers,
} from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { ampRules } from './check';
import { type AmpDecodeOptions, createAmpRecordDecoder } from './decode';
import { type AmpEncodeOptions, createAmpEncoder } from './encode';
import { AMP_MAX_LINE_BYTES } from './wire';

export { checkAmpEvents } from './check';
export type { AmpDecodeOptions } from './decode';
export type { AmpEncodeOptions } from './encode';
export { AMP_MAX_LINE_BYTES, AMP_RECORD_TYPES, type AmpHints, type AmpRecordType } from './wire';

/** The Amp stream-json codec plus its stream checker. */
export interface AmpCodec extends CheckingCodec<AmpDecodeOptions, AmpEncodeOptions> {
  /**
   * Validates a whole Amp stream: every decoder diagnostic plus stream-json's ordering promises
   * ({@link checkAmpEvents}). Empty means conforming.
   */
  check(input: string | Uint8Array, options?: AmpDecodeOptions): Diagnostic[];
}

/**
 * The reading half of {@link amp}: `parse`, `decode`, `createDecoder`, the decoder streams and the
 * checkers, the same as `amp`'s. Pick it to read Amp without writing it (a viewer): a bundle that
 * imports only `ampReader` holds no byte of the Amp writer.
 */
export const ampReader: CheckingReader<AmpDecodeOptions> = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ createLineReader<AmpDecodeOptions>({
    format: 'amp',
    maxLineBytes: AMP_MAX_LINE_BYTES,
    createRecordDecoder: createAmpRecordDecoder,
  }),
  ampRules,
);

/**
 * The writing half of {@link amp}: `stringify`, `encode`, `createEncoder` and `encoderStream`, the
 * same as `amp`'s. Pick it to write Amp without reading it (an emitter): a bundle that imports only
 * `ampWriter` holds no byte of the Amp decoder or checker.
 */
export const ampWriter: CodecWriter<AmpEncodeOptions> = /* @__PURE__ */ createWriter<AmpEncodeOptions>({
  format: 'amp',
  createEncoder: (options, sink) => createAmpEncoder(options, sink),
});

/**
 * Amp's `amp --execute --stream-json` output: Claude Code compatible `system`/`user`/`assistant`/
 * `result` lines with Amp's own field set (`T-` thread ids, no `uuid`, no cost). The legacy
 * `initial`/`messages` output is reported as `unsupported_version`.
 *
 * @example
 * ```ts
 * import { amp } from 'agentwire/amp';
 * const { events, diagnostics } = amp.parse(text);
 * amp.stringify(events); // === text
 * ```
 */
export const amp: AmpCodec = /* @__PURE__ */ joinCodec(ampReader, ampWriter);
