#!/usr/bin/env node
// The size budget: every browser entry of package.json `exports`, bundled with all its
// dependencies, minified and gzipped, against the limits in scripts/size-budget.json. Entries
// are read from package.json `exports` and their sources from tsup.config.ts, so a new format's
// `agentwire/<id>` entry is measured without editing this script. Entries that import `node:`
// built-ins are Node-only and not budgeted. `--why` lists the largest inputs of each entry.
// A format entry is measured twice: whole (every export, its public zod schemas included) and as
// what an app that imports only its codec bundles (`import { hep } from 'agentwire/hep'`: the
// codec's export, named as the entry without dashes), each against its own limit
// (`limits`, `codecLimits`). Each format entry's two halves of that codec are measured the same
// way (`import { hepReader } from 'agentwire/hep'`, and `hepWriter`): a bundle that only reads or
// only writes, against `readerLimits` and `writerLimits`. Exit status 1 when an entry is over a
// limit.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { bundle, packageEntries, root } from './entries.mjs';

const budget = JSON.parse(readFileSync(join(root, 'scripts/size-budget.json'), 'utf8'));
const why = process.argv.includes('--why');
let failed = 0;

// SIZE_BYTES=1 prints bytes (to set a limit from a measure) instead of KB.
function kb(n) {
  return process.env.SIZE_BYTES ? `${n} B` : `${(n / 1024).toFixed(1)} KB`;
}

// Groups an input path: zod modules by module, everything else by file.
function group(path) {
  const zod = /node_modules\/zod\/v4\/(core|mini|classic)\/([\w-]+)\.js$/.exec(path);
  if (zod !== null) return `zod/${zod[1]}/${zod[2]}`;
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  return dep !== null ? dep[1] : path;
}

// `only`: measure a bundle that imports just that export of the entry.
async function measure(entry, only) {
  const result = await bundle(entry.source, only);
  const output = Object.values(result.metafile.outputs)[0];
  const nodeOnly = output.imports.some((i) => i.external && i.path.startsWith('node:'));
  const code = result.outputFiles[0].contents;
  const inputs = new Map();
  for (const [path, info] of Object.entries(output.inputs)) {
    const key = group(path);
    inputs.set(key, (inputs.get(key) ?? 0) + info.bytesInOutput);
  }
  return {
    minified: code.length,
    gzipped: gzipSync(code, { level: 9 }).length,
    nodeOnly,
    inputs,
    exports: output.exports,
  };
}

function report(name, m, limit, target) {
  const over = m.gzipped > limit;
  if (over) failed++;
  console.log(
    `${name.padEnd(26)} ${kb(m.minified).padStart(9)} ${kb(m.gzipped).padStart(9)} ${kb(limit).padStart(9)} ${(target === null ? '-' : kb(target)).padStart(9)}${over ? '  OVER THE LIMIT' : ''}`,
  );
  if (why) {
    const top = [...m.inputs].sort((a, b) => b[1] - a[1]).slice(0, 12);
    for (const [input, bytes] of top) console.log(`    ${kb(bytes).padStart(9)} minified  ${input}`);
  }
}

const entries = packageEntries();
if (entries.length === 0) {
  console.error('size: no entries found in package.json exports / tsup.config.ts');
  process.exit(1);
}
console.log('entry                      minified   gzipped     limit    target');
for (const entry of entries) {
  const m = await measure(entry);
  const name = entry.specifier;
  if (m.nodeOnly) {
    console.log(
      `${name.padEnd(26)} ${kb(m.minified).padStart(9)} ${kb(m.gzipped).padStart(9)}  (Node-only: not budgeted)`,
    );
    continue;
  }
  const limit =
    budget.limits[entry.subpath] ?? (entry.subpath === '.' ? budget.limits['.'] : budget.formatDefault);
  // `null`: no target (agentwire/all bundles every codec by design).
  const target = entry.subpath in budget.targets ? budget.targets[entry.subpath] : budget.targets.format;
  report(name, m, limit, target);
  const codec = entry.subpath.slice(2).replaceAll('-', '');
  if (entry.subpath !== '.' && m.exports.includes(codec)) {
    const c = await measure(entry, codec);
    report(`  { ${codec} } alone`, c, budget.codecLimits[entry.subpath] ?? limit, target);
    for (const [half, limits] of [
      ['Reader', budget.readerLimits],
      ['Writer', budget.writerLimits],
    ]) {
      if (!m.exports.includes(codec + half)) continue;
      const h = await measure(entry, codec + half);
      report(`  { ${codec}${half} } alone`, h, limits[entry.subpath] ?? limit, target);
    }
  }
}
if (failed > 0) {
  console.error(
    `size: ${failed} entr${failed === 1 ? 'y is' : 'ies are'} over the limit (scripts/size-budget.json)`,
  );
  process.exit(1);
}
