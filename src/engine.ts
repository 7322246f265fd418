// What the command line runs on: the codecs, conversion, detection and the timeline, and none of
// the zod schemas the `agentwire` entry exports (the model's, validateEvent). An internal build
// entry (dist/engine.js, not in package.json's exports): the CLI imports it instead of
// dist/index.js, whose schema exports load zod/mini's module graph, most of the CLI's start-up
// memory (docs/performance.md "The CLI against jq"). It shares its chunks with every other entry:
// one copy of the library (test/issue-15/package.test.ts holds both).
export { convertStream, detectFromStream } from './convert';
export { detectFormat } from './detect';
export { isAgentwireError } from './diagnostics';
export { codecFor, codecs } from './formats/index';
export { AGENT_EVENT_TYPES } from './model-guard';
export { TimelineRenderer } from './view';
