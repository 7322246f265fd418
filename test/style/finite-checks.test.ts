import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

// `Number.isFinite` is false for anything that is not a number, so `typeof x !== 'number' ||
// !Number.isFinite(x)` says no more than `!Number.isFinite(x)` (the positive form,
// `typeof x === 'number' && Number.isFinite(x)`, stays: TypeScript narrows only on the `typeof`).
const root = join(__dirname, '../..');
const REDUNDANT = /typeof ([\w.]+) !== 'number' \|\| !Number\.isFinite\(\1\)/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('no redundant typeof before a negated Number.isFinite', () => {
  const found = files(join(root, 'src'))
    .filter((p) => REDUNDANT.test(readFileSync(p, 'utf8')))
    .map((p) => p.slice(root.length + 1));
  expect(found).toEqual([]);
});
