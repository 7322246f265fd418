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
export * from './highbar-emitter';
export { createOtlpTracing, type OtlpTracing, type OtlpTracingOptions, tracesUrl } from './otel-export';
export {
  createSseHandler,
  type NhLogEntry,
  NhSessionLog,
  type NhSessionLogOptions,
  type SseHandlerOptions,
} from './sse-server';
export * from './tail';
export {
  createViewerHandler,
  VIEWER_CSP,
  type ViewerHandlerOptions,
  type ViewerInfo,
} from './viewer';
