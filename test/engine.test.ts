import { expect, test } from 'vitest';
import { CODEC_FORMATS, loadCodec } from '../src/engine';
import { codecs } from '../src/formats/index';

// The command line finds its codecs through src/formats/load.ts (one module loaded per codec it
// runs); the public registry is src/formats/index.ts. Both must say the same.
test('loadCodec lists the formats of the registry, in its order', () => {
  expect(CODEC_FORMATS).toEqual(Object.keys(codecs));
});

test("loadCodec gives each format the registry's own codec object", async () => {
  for (const format of CODEC_FORMATS) expect(await loadCodec(format), format).toBe(codecs[format]);
});

test('loadCodec: undefined for a format this build has no codec for', async () => {
  expect(await loadCodec('nope')).toBeUndefined();
  expect(await loadCodec('toString')).toBeUndefined();
  expect(await loadCodec('__proto__')).toBeUndefined();
});
