import { describe, expectTypeOf, test } from 'vitest';
import { aisdk, aisdkReader, aisdkWriter } from '../src/formats/ai-sdk/index';
import { claude, claudeReader, claudeWriter } from '../src/formats/claude/index';
import { hep, hepReader, hepWriter } from '../src/formats/hep/index';
import { highbarReader, highbarWriter } from '../src/formats/highbar/index';
import type { CheckingReader, Codec, CodecReader, CodecWriter } from '../src/index';

// Type tests of the codec halves (vitest's typecheck mode, and `npm run typecheck`): a reader has
// no writing member and a writer no reading one, so code that picked a half cannot call the other.
describe('codec halves', () => {
  test('a Reader has no stringify, encode or createEncoder', () => {
    expectTypeOf(claudeReader).not.toHaveProperty('stringify');
    expectTypeOf(claudeReader).not.toHaveProperty('encode');
    expectTypeOf(claudeReader).not.toHaveProperty('createEncoder');
    expectTypeOf(hepReader).not.toHaveProperty('stringify');
    expectTypeOf(highbarReader).not.toHaveProperty('stringify');
    expectTypeOf(aisdkReader).not.toHaveProperty('toResponse');
    expectTypeOf<CodecReader>().not.toHaveProperty('stringify');
    expectTypeOf(claudeReader).toHaveProperty('parse');
    expectTypeOf(claudeReader).toHaveProperty('check');
    expectTypeOf(highbarReader).toHaveProperty('matchContext');
  });

  test('a Writer has no parse, decode, createDecoder or check', () => {
    expectTypeOf(claudeWriter).not.toHaveProperty('parse');
    expectTypeOf(claudeWriter).not.toHaveProperty('decode');
    expectTypeOf(claudeWriter).not.toHaveProperty('createDecoder');
    expectTypeOf(claudeWriter).not.toHaveProperty('check');
    expectTypeOf(hepWriter).not.toHaveProperty('parse');
    expectTypeOf(highbarWriter).not.toHaveProperty('parse');
    expectTypeOf(aisdkWriter).not.toHaveProperty('parse');
    expectTypeOf<CodecWriter>().not.toHaveProperty('parse');
    expectTypeOf(claudeWriter).toHaveProperty('stringify');
    expectTypeOf(aisdkWriter).toHaveProperty('toResponse');
  });

  test('the full codec is both halves', () => {
    expectTypeOf(claude).toMatchTypeOf<CheckingReader>();
    expectTypeOf(claude).toMatchTypeOf<CodecWriter>();
    expectTypeOf(hep).toMatchTypeOf<Codec>();
    expectTypeOf(aisdk).toHaveProperty('toResponse');
    expectTypeOf<Codec>().toMatchTypeOf<CodecReader & CodecWriter>();
  });
});
