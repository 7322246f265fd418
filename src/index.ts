// agentwire: every format, the canonical model, conversion, checking and viewing. Browser-safe;
// Node-only parts are in `agentwire/node` and `agentwire/fixtures`.
export { boundSummary, boundText, isBounded } from './bounds';
export * from './codec';
export { type ConvertOptions, type ConvertResult, convert, convertStream, detectFromStream } from './convert';
export { DETECT_BYTES, type Detection, detectFormat } from './detect';
export * from './diagnostics';
export { codecFor, codecs } from './formats';
export { type AmpCodec, amp } from './formats/amp/index';
export { type CopilotCodec, copilot } from './formats/copilot/index';
export { type HepCodec, hep } from './formats/hep/index';
export { type HighbarCodec, highbar } from './formats/highbar/index';
export { connect, type NativeharnessCodec, nativeharness } from './formats/nativeharness/index';
export { DEFAULT_MAX_DEPTH, DEPTH_PRECHECK_CHARS, MAX_DEPTH_CEILING } from './json';
export * from './lines';
export * from './model';
export { neutralizeControls, type TimelineOptions, TimelineRenderer } from './view';
