export {
  DEFAULT_MAX_EVENT_BYTES,
  formatSseEvent,
  type SseFields,
  type SseHandler,
  type SseMessage,
  SseReader,
  type SseReaderOptions,
} from '../../framing/sse';
export { checkNativeharnessEvents } from './check';
export { type ConnectOptions, connect, type NhConnection } from './client';
export { type NativeharnessCodec, nativeharness, nativeharnessReader, nativeharnessWriter } from './codec';
export type { NhDecodeOptions, SseOrigin } from './decode';
export type { NhEncodeOptions } from './encode';
export {
  NhApprovalOption,
  NhEnvelope,
  NhPayloads,
  NhQuestion,
  NhQuestionOption,
  NhUsage,
} from './schema';
export {
  isNhEventType,
  NH_ENVELOPE_KEYS,
  NH_EVENT_TYPES,
  NH_PAYLOAD_KEYS,
  NH_PROTOCOL_VERSION,
  NH_USAGE_KEYS,
  type NhEnvelopeRecord,
  type NhEventType,
  type NhFraming,
  type NhHints,
  type NhPayload,
  validateNhEnvelope,
  validateNhPayload,
} from './wire';
