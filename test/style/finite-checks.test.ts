import { expect, test } from 'vitest';
import { sourcesWhere } from './source-files';

// `Number.isFinite` is false for anything that is not a number, so `typeof x !== 'number' ||
// !Number.isFinite(x)` says no more than `!Number.isFinite(x)` (the positive form,
// `typeof x === 'number' && Number.isFinite(x)`, stays: TypeScript narrows only on the `typeof`).
const REDUNDANT = /typeof ([\w.]+) !== 'number' \|\| !Number\.isFinite\(\1\)/;

test('no redundant typeof before a negated Number.isFinite', () => {
  expect(sourcesWhere((text) => REDUNDANT.test(text))).toEqual([]);
});
