export { checkHepEvents } from './check';
export { type HepCodec, hep, hepReader, hepWriter } from './codec';
export type { HepDecodeOptions } from './decode';
export { type HepEncodeOptions, hepArgsSummary } from './encode';
export {
  HepAgentStartFrame,
  HepCancelledFrame,
  HepCompactionEndFrame,
  HepCompactionStartFrame,
  HepHeaderFrame,
  HepMessageDeltaFrame,
  HepMessageStartFrame,
  HepToolDeltaFrame,
  HepToolLivenessFrame,
  HepToolResult,
  HepToolStartFrame,
  HepTurnDoneFrame,
  HepTurnErrorFrame,
  HepUsage,
} from './schema';
export {
  HEP_FULL_ARGS_CAP,
  HEP_KEY_ORDER,
  HEP_MAX_HELD_RESULT_CHARS,
  HEP_SUMMARY_ARGS_CAP,
  HEP_TOOL_RESULT_KEYS,
  HEP_TOOL_RESULT_TEXT_CAP,
  HEP_USAGE_KEYS,
  type HepFrame,
  type HepFrameType,
  type HepHints,
  isHepFrameType,
  validateHepFrame,
} from './wire';
