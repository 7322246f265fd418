import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

// docs/architecture.md, the format folder: `encode.ts` imports `wire.ts`, never `decode.ts`
// (what a writer needs of its decoder is the hints type and the format's rules, in wire.ts).

const formats = join(import.meta.dirname, '..', 'src', 'formats');
const folders = readdirSync(formats, { withFileTypes: true }).filter((d) => d.isDirectory());

test.each(folders.map((d) => d.name))('%s: the writer does not import the decoder', (name) => {
  const encode = join(formats, name, 'encode.ts');
  expect(existsSync(encode)).toBe(true);
  expect(readFileSync(encode, 'utf8')).not.toMatch(/from '\.\/decode'/);
});
