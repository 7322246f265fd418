import { expect, test } from 'vitest';
import { AISDK_HEADERS, AISDK_STREAM_HEADER, AISDK_STREAM_VERSION } from '../../src/formats/ai-sdk';

// wire.ts spells the stream header's key out (a computed key kept the headers in every reader
// bundle): this holds the spelled key to the exported constants.
test('AISDK_HEADERS carries the UI message stream header with its version', () => {
  expect(AISDK_HEADERS[AISDK_STREAM_HEADER]).toBe(AISDK_STREAM_VERSION);
  expect(Object.keys(AISDK_HEADERS).filter((k) => k.startsWith('x-vercel'))).toEqual([AISDK_STREAM_HEADER]);
});
