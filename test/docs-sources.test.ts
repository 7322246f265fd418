import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

// The package ships README.md, CHANGELOG.md and docs/ (package.json `files`), and its sources are
// read on GitHub. The reference corpus the tests read at run time (`../shared/captures`, with its
// catalogue FORMATS.md) is outside the repository: a reader of the docs or the code has no such
// folder, so a fact is cited by its public source (repository and path, an issue, a package), not
// by a path into the corpus. CHANGELOG entries are history and may name it.

function files(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith(ext))
    .map((d) => join(d.parentPath ?? (d as unknown as { path: string }).path, d.name));
}

const CITED = /\.\.\/shared\b|FORMATS\.md/;

test.each(['README.md', ...files('docs', '.md'), ...files('src', '.ts')])(
  '%s cites public sources, not the reference corpus outside the repository',
  (path) => {
    const lines = readFileSync(path, 'utf8').split('\n');
    const cited = lines.flatMap((line, i) => (CITED.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : []));
    expect(cited).toEqual([]);
  },
);
