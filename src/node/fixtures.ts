import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Diagnostic, FORMATS, type Format } from '../diagnostics';
import type { AgentEvent } from '../model';

/** One shipped fixture: a wire stream and the canonical events agentwire decodes from it. */
export interface FixtureInfo {
  format: Format;
  /** File name without its extension, e.g. `tool-then-text`. */
  name: string;
  /** Absolute path of the wire file. */
  path: string;
  /** Absolute path of its golden file (`{ events, diagnostics }`). */
  goldenPath: string;
}

/** A loaded fixture. */
export interface Fixture extends FixtureInfo {
  /** The wire bytes, exactly as shipped. */
  bytes: Uint8Array;
  /** The same bytes as text. */
  text: string;
  /** What `codec.parse(bytes)` must return. */
  expected: { events: AgentEvent[]; diagnostics: Diagnostic[] };
}

const PRIMARY: Readonly<Partial<Record<Format, string>>> = {
  hep: 'jsonl',
  highbar: 'jsonl',
  nativeharness: 'sse',
  codex: 'jsonl',
  claude: 'jsonl',
  opencode: 'jsonl',
  cursor: 'jsonl',
  gemini: 'jsonl',
  amp: 'jsonl',
  copilot: 'jsonl',
  'ag-ui': 'sse',
  'ai-sdk': 'sse',
};

/** The folder the fixtures ship in (inside the installed package). */
export function fixturesDir(): string {
  // dist/fixtures.js (built) and src/node/fixtures.ts (sources) sit at different depths.
  for (const rel of ['../fixtures/', '../../fixtures/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}hep`)) return dir;
  }
  throw new Error('agentwire: the fixtures folder is missing from this installation');
}

/** Lists the shipped fixtures, of one format or all. Every wire file that has a golden file. */
export function listFixtures(format?: Format): FixtureInfo[] {
  const root = fixturesDir();
  const out: FixtureInfo[] = [];
  for (const f of format === undefined ? FORMATS : [format]) {
    const dir = `${root}${f}`;
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      const m = /^(.*)\.(jsonl|sse|json)$/.exec(file);
      if (m === null || file.endsWith('.golden.json')) continue;
      const [, base, ext] = m as unknown as [string, string, string];
      // The primary framing's golden is `name.golden.json`; other framings have `name.ext.golden.json`.
      const primary = ext === PRIMARY[f];
      const goldenPath = primary ? `${dir}/${base}.golden.json` : `${dir}/${base}.${ext}.golden.json`;
      if (!existsSync(goldenPath)) continue;
      out.push({ format: f, name: primary ? base : `${base}.${ext}`, path: `${dir}/${file}`, goldenPath });
    }
  }
  return out;
}

/**
 * Loads one fixture with its expected events.
 *
 * @example
 * ```ts
 * const fx = loadFixture('hep', 'tool-then-text');
 * expect(myEmitterOutput).toBe(fx.text);                  // pin your bytes
 * expect(hep.parse(fx.bytes)).toEqual(fx.expected);       // or your events
 * ```
 */
export function loadFixture(format: Format, name: string): Fixture {
  const info = listFixtures(format).find((f) => f.name === name);
  if (info === undefined) {
    const known = listFixtures(format).map((f) => f.name);
    throw new Error(
      `agentwire: no ${format} fixture named ${JSON.stringify(name)} (known: ${known.join(', ')})`,
    );
  }
  const bytes = new Uint8Array(readFileSync(info.path));
  return {
    ...info,
    bytes,
    text: new TextDecoder().decode(bytes),
    expected: JSON.parse(readFileSync(info.goldenPath, 'utf8')) as Fixture['expected'],
  };
}
