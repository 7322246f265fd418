// The package's entries, read the way the build makes them: each `exports` subpath of
// package.json with the tsup entry (tsup.config.ts) that builds its `./dist/<name>.js`. Shared by
// the size budget (scripts/size.mjs) and the public-API test (test/api.test.ts), so an entry a new
// format adds is measured and checked without editing either; and the bundle the size budget
// measures (`bundle`), which the codec halves' test (test/halves.test.ts) reads too.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The repository root. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** tsup entry name → source file, from the `entry: { name: 'src/…' }` objects of tsup.config.ts. */
export function tsupEntries(text) {
  const entries = new Map();
  for (const block of text.matchAll(/entry:\s*\{([^}]*)\}/g)) {
    for (const m of block[1].matchAll(/(?:'([^']+)'|"([^"]+)"|([\w$-]+))\s*:\s*['"]([^'"]+)['"]/g)) {
      entries.set(m[1] ?? m[2] ?? m[3], m[4]);
    }
  }
  return entries;
}

/**
 * Every `exports` subpath built by a tsup entry: `{ subpath, specifier, name, source }`, with
 * `specifier` what a user imports (`agentwire`, `agentwire/hep`).
 */
export function packageEntries() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const entries = tsupEntries(readFileSync(join(root, 'tsup.config.ts'), 'utf8'));
  const out = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target?.import?.default;
    const m = typeof file === 'string' ? /^\.\/dist\/(.+)\.js$/.exec(file) : null;
    if (m === null || !entries.has(m[1])) continue;
    const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
    out.push({ subpath, specifier, name: m[1], source: entries.get(m[1]) });
  }
  return out;
}

/**
 * esbuild's bundle of `source` (a path from the root), or of a module that exports only `only`
 * from it: minified, ES2022, for the browser, every dependency in it but `node:` built-ins and
 * the optional peer dependencies (the user's, not our bytes); with its metafile.
 */
export function bundle(source, only) {
  const path = join(root, source);
  const peers = Object.keys(
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).peerDependencies ?? {},
  );
  return build({
    ...(only === undefined
      ? { entryPoints: [path] }
      : { stdin: { contents: `export { ${only} } from ${JSON.stringify(path)};`, resolveDir: root } }),
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    external: ['node:*', ...peers],
    logLevel: 'silent',
  });
}
