import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { codecFor } from '../../src/all';
import { listFixtures, loadFixture } from '../../src/node/fixtures';
import { expectGolden } from '../golden';

describe('the fixture kit', () => {
  test('nativeharness fixtures in their other framings have goldens of their own', () => {
    for (const file of readdirSync('fixtures/nativeharness').filter(
      (f) => /\.(jsonl|json)$/.test(f) && !f.includes('golden'),
    )) {
      const codec = codecFor('nativeharness')!;
      const framing = file.endsWith('.jsonl') ? 'jsonl' : 'json';
      const parsed = codec.parse(new Uint8Array(readFileSync(`fixtures/nativeharness/${file}`)), {
        framing,
      } as object);
      expect(parsed.diagnostics).toEqual([]);
      expectGolden(`fixtures/nativeharness/${file}.golden.json`, parsed);
    }
  });

  test('lists every shipped wire file that has a golden', () => {
    const all = listFixtures();
    expect(all.filter((f) => f.format === 'hep').map((f) => f.name)).toContain('tool-then-text');
    expect(all.filter((f) => f.format === 'nativeharness').map((f) => f.name)).toEqual(
      expect.arrayContaining(['live-turn', 'live-turn.jsonl', 'live-turn.json']),
    );
    expect(new Set(all.map((f) => f.format))).toEqual(
      new Set([
        'hep',
        'highbar',
        'nativeharness',
        'claude',
        'codex',
        'gemini',
        'opencode',
        'cursor',
        'amp',
        'copilot',
        'ag-ui',
        'ai-sdk',
      ]),
    );
  });

  test('every fixture decodes to its expected events: a golden test in three lines', () => {
    for (const info of listFixtures()) {
      const fx = loadFixture(info.format, info.name);
      const codec = codecFor(fx.format);
      if (codec === undefined) continue;
      expect(codec.parse(fx.bytes), `${fx.format}/${fx.name}`).toEqual(fx.expected);
    }
  });

  test('an unknown fixture name says which exist', () => {
    expect(() => loadFixture('hep', 'nope')).toThrow(/known: .*tool-then-text/);
  });
});
