// Node-only parts of agentwire: file following, the fixture kit (and, per format, tailers,
// emitters and servers). Nothing here is needed by the browser-safe core.

export { type Fixture, type FixtureInfo, fixturesDir, listFixtures, loadFixture } from './fixtures';
export { type FollowOptions, followFile } from './follow';
export * from './highbar-emitter';
export {
  createProtocolHandler,
  type ProtocolHandlerOptions,
  ProtocolLog,
  type ProtocolLogEntry,
  type ProtocolLogOptions,
} from './protocol-server';
export {
  createSseHandler,
  type NhLogEntry,
  NhSessionLog,
  type NhSessionLogOptions,
  type SseHandlerOptions,
} from './sse-server';
export * from './tail';
