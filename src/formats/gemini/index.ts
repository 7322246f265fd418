import { type CheckingCodec, createCheckers, createLineCodec, type ParseResult } from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { geminiRules } from './check';
import { type GeminiDecodeOptions, GeminiRecordDecoder } from './decode';
import { type GeminiEncodeOptions, GeminiEncoder } from './encode';
import { GEMINI_MAX_LINE_BYTES } from './wire';

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

// The events of a short stream of Gemini's common lines, alive for as long as the module, made
// with the first encoder or decoder (the codec holds one of each: createCodec): the hidden class
// of an event's provenance and hints, and of the records the decoder makes per line, is a
// transition that a full GC frees when none is alive, and the optimised per-line and per-event
// code that embedded it goes with it (docs/performance.md, "Round thirty-three").
let held: ParseResult | undefined;
const HELD_LINES = [
  '{"type":"init","timestamp":"2026-03-19T10:14:28.213Z","session_id":"s","model":"auto"}',
  '{"type":"message","timestamp":"2026-03-19T10:14:28.215Z","role":"user","content":"a"}',
  '{"type":"message","timestamp":"2026-03-19T10:14:28.611Z","role":"assistant","content":"a","delta":true}',
  '{"type":"message","timestamp":"2026-03-19T10:14:28.611Z","role":"assistant","content":"\\"a\\"","delta":true}',
  '{"type":"tool_use","timestamp":"2026-03-19T10:14:30.798Z","tool_name":"t","tool_id":"c","parameters":{"p":"a"}}',
  '{"type":"tool_result","timestamp":"2026-03-19T10:14:31.021Z","tool_id":"c","status":"success","output":"a"}',
];

function holdShapes(): void {
  if (held !== undefined) return;
  // Set first: the parse below makes a decoder too.
  held = { events: [], diagnostics: [] };
  held = codec.parse(`${HELD_LINES.join('\n')}\n`);
}

const codec = createLineCodec<GeminiDecodeOptions, GeminiEncodeOptions>({
  format: 'gemini',
  maxLineBytes: GEMINI_MAX_LINE_BYTES,
  createRecordDecoder: (options, sink) => {
    holdShapes();
    return new GeminiRecordDecoder(options, sink);
  },
  createEncoder: (options, sink) => {
    holdShapes();
    return new GeminiEncoder(options, sink);
  },
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
