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
import { geminiRules } from './check';
import { type GeminiDecodeOptions, GeminiRecordDecoder } from './decode';
import { type GeminiEncodeOptions, GeminiEncoder } from './encode';
import { GEMINI_HELD_INPUT, GEMINI_MAX_LINE_BYTES } from './wire';

export { checkGeminiEvents } from './check';
export type { GeminiDecodeOptions } from './decode';
export type { GeminiEncodeOptions } from './encode';
export {
  GEMINI_KEY_ORDER,
  GEMINI_MAX_LINE_BYTES,
  GEMINI_RECORD_TYPES,
  type GeminiHints,
  type GeminiRecordType,
  isGeminiRecordType,
  sniffGemini,
} from './wire';

/** The Gemini CLI stream-json codec plus its stream checker. */
export interface GeminiCodec extends CheckingCodec<GeminiDecodeOptions, GeminiEncodeOptions> {
  /**
   * Validates a whole Gemini stream: every decoder diagnostic plus the stream's own rules
   * ({@link checkGeminiEvents}). Empty means conforming.
   */
  check(input: string | Uint8Array, options?: GeminiDecodeOptions): Diagnostic[];
}

/**
 * The reading half of {@link gemini}: `parse`, `decode`, `createDecoder`, the decoder streams and
 * the checkers, the same as `gemini`'s. Pick it to read Gemini CLI without writing it (a viewer): a
 * bundle that imports only `geminiReader` holds no byte of the Gemini CLI writer.
 */
export const geminiReader: CheckingReader<GeminiDecodeOptions> = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ createLineReader<GeminiDecodeOptions>({
    format: 'gemini',
    maxLineBytes: GEMINI_MAX_LINE_BYTES,
    createRecordDecoder: (options, sink) => new GeminiRecordDecoder(options, sink),
    heldInput: GEMINI_HELD_INPUT,
    holdsRecords: true,
  }),
  geminiRules,
);

/**
 * The writing half of {@link gemini}: `stringify`, `encode`, `createEncoder` and `encoderStream`,
 * the same as `gemini`'s. Pick it to write Gemini CLI without reading it (an emitter): a bundle
 * that imports only `geminiWriter` holds no byte of the Gemini CLI decoder or checker.
 */
export const geminiWriter: CodecWriter<GeminiEncodeOptions> =
  /* @__PURE__ */ createWriter<GeminiEncodeOptions>({
    format: 'gemini',
    createEncoder: (options, sink) => new GeminiEncoder(options, sink),
  });

/**
 * Gemini CLI `--output-format stream-json` (`gemini -p … --output-format stream-json`): `init`,
 * `message`, `tool_use`, `tool_result`, `error`, `result`, one JSON object per line, and the
 * banner lines the CLI prints before `init`.
 *
 * @example
 * ```ts
 * import { gemini } from 'agentwire/gemini';
 * const { events, diagnostics } = gemini.parse(text);
 * const bytes = gemini.stringify(events); // === text, banners and all
 * ```
 */
export const gemini: GeminiCodec = /* @__PURE__ */ joinCodec(geminiReader, geminiWriter);
