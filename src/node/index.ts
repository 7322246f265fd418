// Node-only parts of agentwire: file following, the fixture kit (and, per format, tailers,
// emitters and servers). Nothing here is needed by the browser-safe core.

export {
  type AccessDecision,
  type AccessGuard,
  type AccessGuardOptions,
  createAccessGuard,
  isLoopback,
  TOKEN_COOKIE,
  TOKEN_ENV,
} from './access';
export { type Fixture, type FixtureInfo, fixturesDir, listFixtures, loadFixture } from './fixtures';
export { type FollowOptions, followFile } from './follow';
export {
  createHighbarEmitter,
  type HighbarEmitter,
  type HighbarEmitterOptions,
  type HighbarToolCall,
  hello,
  nowSeconds,
  tool,
  turn,
} from './highbar-emitter';
export { createOtlpTracing, type OtlpTracing, type OtlpTracingOptions, tracesUrl } from './otel-export';
export {
  createProtocolHandler,
  type ProtocolHandlerOptions,
  ProtocolLog,
  type ProtocolLogEntry,
  type ProtocolLogOptions,
} from './protocol-server';
export type {
  NhLogEntry,
  SessionFollower,
  SessionGap,
  SessionLog,
  SessionSnapshot,
} from './session-log';
export {
  createSseHandler,
  NhSessionLog,
  type NhSessionLogOptions,
  SSE_CLIENT_AHEAD_BYTES,
  type SseHandlerOptions,
} from './sse-server';
export { type TailCheckpoint, type TailItem, type TailTraceOptions, type TraceTail, tailTrace } from './tail';
export {
  createViewerHandler,
  VIEWER_CSP,
  type ViewerHandlerOptions,
  type ViewerInfo,
} from './viewer';
