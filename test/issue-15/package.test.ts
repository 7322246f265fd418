import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { expect, test } from 'vitest';

// Issue #15 item 10: the package as npm sees it — links, runtime dependency ranges, a CLI that
// imports the library's own files instead of a copy, `node:` built-in imports.
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, unknown> & {
  dependencies: Record<string, string>;
};

test('repository, homepage and bugs are set', () => {
  expect(pkg.repository).toEqual({ type: 'git', url: 'git+https://github.com/agentwire/agentwire.git' });
  expect(pkg.homepage).toMatch(/^https:\/\/github\.com\/agentwire\/agentwire/);
  expect(pkg.bugs).toEqual({ url: 'https://github.com/agentwire/agentwire/issues' });
});

test('runtime dependencies are ranges (npm can share a consumer copy); the lockfile pins them', () => {
  for (const [name, range] of Object.entries(pkg.dependencies)) expect(range, name).toMatch(/^\^\d/);
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
    packages: Record<string, { version?: string; dependencies?: Record<string, string> }>;
  };
  expect(lock.packages['']!.dependencies).toEqual(pkg.dependencies);
  for (const name of Object.keys(pkg.dependencies))
    expect(lock.packages[`node_modules/${name}`]!.version).toMatch(/^\d+\.\d+\.\d+$/);
});

const built = (f: string) => readFileSync(`dist/${f}`, 'utf8');

test('dist/cli.js imports the library entry files; it holds no second copy', () => {
  expect(existsSync('dist/cli.js')).toBe(true);
  const cli = built('cli.js');
  // The library is imported after the CLI sets its heap flags (a dynamic import), through its
  // entry without the zod schemas (dist/engine.js: the same chunks as dist/all.js).
  expect(cli).toMatch(/import\("\.\/engine\.js"\)/);
  // The serving modules are loaded by the commands that serve (a dynamic import).
  expect(cli).toMatch(/import\("\.\/node\.js"\)/);
  // Library code (the line splitter, a codec's writer) lives in the entries' chunks only.
  expect(cli).not.toContain('class LineSplitter');
  expect(cli).not.toContain('class HepEncoder');
  expect(statSync('dist/cli.js').size).toBeLessThan(64 * 1024);
});

/** Every module `dist/<file>` loads by static imports: the bare ones, and the built files. */
function staticGraph(file: string): { bare: Set<string>; files: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const visit = (f: string) => {
    if (files.has(f)) return;
    files.add(f);
    for (const m of built(f).matchAll(
      /^(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|^import\s*["']([^"']+)["']/gm,
    )) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith('./')) visit(spec.slice(2));
      else bare.add(spec);
    }
  };
  visit(file);
  return { bare, files };
}

test('the CLI loads no zod to read and write: its library entry is agentwire/all without the schemas', () => {
  const engine = staticGraph('engine.js');
  expect([...engine.bare].filter((m) => m.startsWith('zod'))).toEqual([]);
  // The same library: every chunk the engine loads is one the public `agentwire/all` loads too.
  const index = staticGraph('all.js');
  for (const f of engine.files) if (f !== 'engine.js') expect(index.files.has(f), f).toBe(true);
  expect([...index.bare]).toContain('zod/mini');
  // What the engine loads on demand (each codec, detection) holds no zod either, and is the
  // index's code: a stub that re-exports the index's chunks.
  const lazy = [...built('engine.js').matchAll(/import\(["']\.\/([^"']+)["']\)/g)].map((m) => m[1]!);
  expect(lazy.length).toBeGreaterThanOrEqual(13);
  for (const file of lazy) {
    const graph = staticGraph(file);
    expect(
      [...graph.bare].filter((m) => m.startsWith('zod')),
      file,
    ).toEqual([]);
    for (const f of graph.files) if (f !== file) expect(index.files.has(f), `${file}: ${f}`).toBe(true);
  }
  // Nor does the CLI itself import zod or the public index before a command needs it.
  expect(built('cli.js')).not.toMatch(/from\s*["']zod|import\("\.\/index\.js"\)/);
});

test('built files import Node built-ins with the node: prefix', () => {
  const bare = new Set(builtinModules.filter((m) => !m.startsWith('_') && !m.includes(':')));
  for (const file of readdirSync('dist').filter((f) => /\.(c?js)$/.test(f))) {
    const text = built(file);
    for (const m of text.matchAll(/(?:from\s*|require\(|import\()\s*["']([^"']+)["']/g)) {
      const name = m[1]!.split('/')[0]!;
      expect(bare.has(name), `${file}: ${m[1]}`).toBe(false);
    }
  }
});
