import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
// @ts-expect-error: a plain .mjs helper shared with scripts/size.mjs (no type declarations)
import { packageEntries, root } from '../scripts/entries.mjs';

// The public API is what each entry of package.json `exports` exports by name, values and types
// alike, read with the TypeScript checker from the entry's source (tsup.config.ts says which).
// The README's "Exports" list names the same, entry by entry: an export that appears or
// disappears without the list changing fails here, and so does an entry without its line.

interface Entry {
  subpath: string;
  specifier: string;
  name: string;
  source: string;
}

const entries = packageEntries() as Entry[];

function exportedNames(sources: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram(
    sources.map((s) => join(root, s)),
    {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      target: ts.ScriptTarget.ES2022,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
    },
  );
  const checker = program.getTypeChecker();
  const out = new Map<string, string[]>();
  for (const source of sources) {
    const file = program.getSourceFile(join(root, source));
    if (file === undefined) throw new Error(`${source}: not found`);
    const symbol = checker.getSymbolAtLocation(file);
    const names = symbol === undefined ? [] : checker.getExportsOfModule(symbol).map((s) => s.getName());
    out.set(source, names.sort());
  }
  return out;
}

// `- \`agentwire/hep\`: \`a\`, \`b\`` lines of the README's "### Exports" section.
function readmeLists(): Map<string, string[]> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('\n### Exports\n');
  expect(start, 'README.md has an "### Exports" section').toBeGreaterThan(-1);
  const end = readme.indexOf('\n#', start + 14);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const lists = new Map<string, string[]>();
  for (const m of section.matchAll(/^- `([^`]+)`: (.*)$/gm)) {
    lists.set(m[1]!, [...m[2]!.matchAll(/`([^`]+)`/g)].map((n) => n[1]!).sort());
  }
  return lists;
}

describe('public API', () => {
  test('package.json exports and tsup.config.ts name the entries', () => {
    expect(entries.map((e) => e.subpath)).toContain('.');
    expect(entries.length).toBeGreaterThan(1);
  });

  test("every entry exports exactly what the README's Exports list names", () => {
    const actual = exportedNames(entries.map((e) => e.source));
    const listed = readmeLists();
    const problems: string[] = [];
    for (const e of entries) {
      const names = actual.get(e.source)!;
      const documented = listed.get(e.specifier);
      if (documented === undefined) {
        problems.push(`${e.specifier}: no line in README "### Exports"; it exports ${names.join(', ')}`);
        continue;
      }
      const added = names.filter((n) => !documented.includes(n));
      const gone = documented.filter((n) => !names.includes(n));
      if (added.length > 0)
        problems.push(`${e.specifier}: exported but not in the README: ${added.join(', ')}`);
      if (gone.length > 0)
        problems.push(`${e.specifier}: in the README but not exported: ${gone.join(', ')}`);
    }
    for (const specifier of listed.keys()) {
      if (!entries.some((e) => e.specifier === specifier))
        problems.push(`${specifier}: listed in the README but not an entry of package.json exports`);
    }
    expect(problems).toEqual([]);
  }, 60_000);

  // A whole-module re-export could leak plumbing; one of another public entry cannot (that entry's
  // own exports are named, and this test holds it to that): `agentwire/all` re-exports `agentwire`.
  test('no entry re-exports a whole module but another entry (every export is named)', () => {
    const sources = new Set(entries.map((e) => e.source.replace(/\.ts$/, '')));
    for (const e of entries) {
      const text = readFileSync(join(root, e.source), 'utf8');
      for (const m of text.matchAll(/^export \* from '([^']+)'/gm)) {
        const target = join(dirname(e.source), m[1]!);
        expect(sources.has(target), `${e.source}: export * from '${m[1]}' is not a public entry`).toBe(true);
      }
    }
  });
});
