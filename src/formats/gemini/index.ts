import { type CheckingCodec, createCheckers, createLineCodec } from '../../codec';
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

const codec = createLineCodec<GeminiDecodeOptions, GeminiEncodeOptions>({
  format: 'gemini',
  maxLineBytes: GEMINI_MAX_LINE_BYTES,
  createRecordDecoder: (options, sink) => new GeminiRecordDecoder(options, sink),
  createEncoder: (options, sink) => new GeminiEncoder(options, sink),
  heldInput: GEMINI_HELD_INPUT,
  holdsRecords: true,
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
export const gemini: GeminiCodec = {
  ...codec,
  ...createCheckers(codec, geminiRules),
};
