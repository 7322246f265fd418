import { type Codec, createCheck, createCodec, lineChunkDecoder } from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { checkHepEvents } from './check';
import { createHepRecordDecoder, type HepDecodeOptions } from './decode';
import { type HepEncodeOptions, HepEncoder } from './encode';
import { HEP } from './wire';

export { checkHepEvents } from './check';
export type { HepDecodeOptions } from './decode';
export { type HepEncodeOptions, hepArgsSummary } from './encode';
export {
  HEP_FULL_ARGS_CAP,
  HEP_KEY_ORDER,
  HEP_MAX_HELD_RESULT_CHARS,
  HEP_SUMMARY_ARGS_CAP,
  HEP_TOOL_RESULT_KEYS,
  HEP_TOOL_RESULT_TEXT_CAP,
  HEP_USAGE_KEYS,
  HepAgentStartFrame,
  HepCancelledFrame,
  HepCompactionEndFrame,
  HepCompactionStartFrame,
  type HepFrame,
  type HepFrameType,
  HepHeaderFrame,
  type HepHints,
  HepMessageDeltaFrame,
  HepMessageStartFrame,
  HepToolDeltaFrame,
  HepToolLivenessFrame,
  HepToolResult,
  HepToolStartFrame,
  HepTurnDoneFrame,
  HepTurnErrorFrame,
  HepUsage,
  isHepFrameType,
  validateHepFrame,
} from './wire';

/** The HEP v1 codec plus its stream checker. */
export interface HepCodec extends Codec<HepDecodeOptions, HepEncodeOptions> {
  /**
   * Validates a whole HEP stream: every decoder diagnostic (schema, JSON, bounds on lines) plus
   * violations of HEP's ordering guarantees (`order`) and writer bounds. Empty means conforming.
   */
  check(input: string | Uint8Array, options?: HepDecodeOptions): Diagnostic[];
}

const codec = createCodec<HepDecodeOptions, HepEncodeOptions>({
  format: HEP,
  createChunkDecoder: (options, sink) =>
    lineChunkDecoder(HEP, 'jsonl', options, sink, createHepRecordDecoder(options, sink)),
  createEncoder: (options, sink) => new HepEncoder(options, sink),
});

/**
 * HEP v1 — the JSON Lines event stream of the `fa` CLI agent (`fa --output events`).
 *
 * @example
 * ```ts
 * import { hep } from 'agentwire/hep';
 * const { events, diagnostics } = hep.parse(text);
 * const bytes = hep.stringify(events); // === text for a conforming stream
 * ```
 */
export const hep: HepCodec = {
  ...codec,
  check: createCheck(codec, checkHepEvents),
};
