// What the command line runs on: conversion, detection and the timeline, with each codec loaded
// on demand (src/formats/load.ts), and none of the zod schemas the `agentwire` entry exports (the
// model's, validateEvent). An internal build entry (dist/engine.js, not in package.json's
// exports): the CLI imports it instead of dist/all.js, whose schema exports load zod/mini's
// module graph, and a command loads only the codecs it runs: module loading is most of the CLI's
// start-up memory (docs/performance.md "The CLI against jq"). It shares its chunks with every
// other entry: one copy of the library (test/issue-15/package.test.ts holds both).
export { convertChunks } from './convert-stream';
export { diagnosticAt, emptyStream, isAgentwireError } from './diagnostics';
export { CODEC_FORMATS, loadCodec } from './formats/load';
export { AGENT_EVENT_TYPES } from './model-guard';
export { neutralizeControls, TimelineRenderer } from './view';

/** Detection (every format's sniffing rule), loaded by the commands that detect. */
export const loadDetection = () => import('./detect-stream');
