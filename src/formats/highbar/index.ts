export { checkHighbarEvents } from './check';
export { type HighbarCodec, type HighbarReader, highbar, highbarReader, highbarWriter } from './codec';
export { DeclaredTools, declaredTools, matchContext, sameReading } from './declared';
export type { HighbarDecodeOptions } from './decode';
export type { HighbarEncodeOptions } from './encode';
export { joinPy, pyDumps, pyFloat, pyNumber, pyString } from './pyjson';
export {
  HighbarHelloRecord,
  HighbarToolRecord,
  HighbarToolsRecord,
  HighbarTurnRecord,
  HighbarV0Record,
} from './schema';
export {
  HIGHBAR_KEY_ORDER,
  HIGHBAR_TIME_FIELDS,
  HIGHBAR_V0_FIELDS,
  HIGHBAR_VERSION,
  type HighbarHints,
  type HighbarRecord,
  type HighbarRecordType,
  isHighbarRecordType,
  validateHighbarRecord,
} from './wire';
