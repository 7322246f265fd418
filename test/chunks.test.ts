import { describe, expect, test } from 'vitest';
import { type CheckingCodec, detectFormat } from '../src/all';
import { codecs } from '../src/formats';
import { listFixtures, loadFixture } from '../src/node/fixtures';

// A chunk is text or bytes in any binary a caller holds: a Uint8Array (a Buffer), an ArrayBuffer,
// a DataView or another view, read in place with the same events as the Uint8Array of the same
// bytes. Anything else is a programming error: a TypeError that says what a chunk may be.

const fixtures = listFixtures().filter((f) => !f.name.includes('.'));
const one = new Map(fixtures.map((f) => [f.format, f] as const));

/** The same bytes, at an offset inside a larger buffer (views must honour byteOffset). */
function inside(bytes: Uint8Array): { buffer: ArrayBuffer; offset: number } {
  const buffer = new ArrayBuffer(bytes.length + 7);
  new Uint8Array(buffer).set(bytes, 3);
  return { buffer, offset: 3 };
}

describe.each([...one.values()].map((f) => [f.format, f] as const))('%s decoder', (format, info) => {
  const fx = loadFixture(info.format, info.name);
  const codec = codecs[format] as CheckingCodec;
  const bytes = new Uint8Array(fx.bytes);
  const expected = JSON.stringify(codec.parse(bytes).events);

  test('an ArrayBuffer, a DataView and an offset view read as the Uint8Array does', () => {
    const { buffer, offset } = inside(bytes);
    const kinds = [
      bytes.slice().buffer,
      new DataView(buffer, offset, bytes.length),
      new Uint8Array(buffer, offset, bytes.length),
    ];
    for (const chunk of kinds) {
      const d = codec.createDecoder();
      const events = [...d.push(chunk), ...d.end()];
      expect(JSON.stringify(events)).toBe(expected);
    }
  });

  test('the checker takes them too', () => {
    const c = codec.createChecker();
    const found = [...c.push(bytes.slice().buffer), ...c.end()];
    expect(found).toEqual(codec.check(bytes));
  });

  test('a value that is no chunk is a TypeError naming what a chunk is', () => {
    for (const bad of [42, null, undefined, [1, 2], { length: 3 }]) {
      const d = codec.createDecoder();
      expect(() => d.push(bad as unknown as Uint8Array)).toThrow(
        /a chunk is a string, a Uint8Array, an ArrayBuffer or a view of one/,
      );
    }
  });
});

test('detectFormat reads an ArrayBuffer as its bytes', () => {
  const fx = loadFixture('hep', 'tool-then-text');
  expect(detectFormat(new Uint8Array(fx.bytes).slice().buffer)).toEqual(detectFormat(fx.bytes));
});
