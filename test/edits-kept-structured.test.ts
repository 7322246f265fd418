import { describe, expect, test } from 'vitest';
import type { AgentEvent } from '../src/all';
import { listFixtures } from '../src/node/fixtures';
import deleted from './edits-kept-structured.deleted.json';
import known from './edits-kept-structured.known.json';
import { type KeptField, keptFields, withoutKeptLine } from './kept-fields';

// edits-kept.test.ts, for the fields that are not text: a call's `args`, a tool's `result`, a
// notice's `data`, usage figures, a session's `tools`, an unknown record. These are what a
// redaction touches most (a command line, a file's content, a token in a header): an edit of
// one of them must reach the output wherever the same event without its kept line writes it,
// and a field taken out must not come back from the kept line.
//
// An edit keeps the field's shape and changes every leaf: strings to a marker, numbers to a
// number no fixture holds (booleans and nulls stay: they spell no secret). A deletion takes the
// field out; the output may then spell none of its text leaves (6 characters and more) more
// often than the event without its kept line does.
//
// edits-kept-structured.known.json and .deleted.json are ratchets of what is still dropped (or
// kept), as in edits-kept.test.ts: each fixture must give exactly its list.

const MARK = 'EDITED-7f3a';
const NUMBER = 987654321;
// A number is written as itself, or as a time (milliseconds since the epoch, in ISO 8601): a
// writer whose format spells a time as text writes an edited `ts` there.
const NUMBER_MARKS = [String(NUMBER), new Date(NUMBER).toISOString()];

function edited(value: unknown): unknown {
  if (typeof value === 'string') return MARK;
  if (typeof value === 'number') return NUMBER;
  if (Array.isArray(value)) return value.map(edited);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, edited(v)]));
  return value;
}

function textLeaves(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (value.length >= 6) out.push(JSON.stringify(value).slice(1, -1));
  } else if (Array.isArray(value)) for (const v of value) textLeaves(v, out);
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value)) textLeaves(v, out);
  return out;
}

const structured = (value: unknown): boolean =>
  typeof value === 'number' || (value !== null && typeof value === 'object');

const label = (f: KeptField): string => `#${f.i} ${f.event.type}.${f.key}`;

const fixtures = listFixtures();
let tried = 0;

describe.each(fixtures.map((f) => [`${f.format}/${f.path.split('/').pop()}`, f] as const))(
  '%s',
  (name, info) => {
    test('an edited structured field is written wherever the event without its kept line writes it', () => {
      const { fields, write } = keptFields(info, structured);
      const dropped: string[] = [];
      for (const field of fields) {
        const value = edited(field.value);
        const marks = typeof field.value === 'number' ? NUMBER_MARKS : [MARK];
        const has = (text: string) => marks.some((mark) => text.includes(mark));
        const out = (e: AgentEvent) => write(field.i, { ...e, [field.key]: value } as AgentEvent);
        if (has(out(withoutKeptLine(field.event))) && !has(out(field.event))) dropped.push(label(field));
      }
      tried += fields.length;
      expect(dropped).toEqual((known as Record<string, string[]>)[name] ?? []);
    });

    test('a deleted structured field is not written back from the kept line', () => {
      const { fields, write } = keptFields(info, structured);
      const kept: string[] = [];
      for (const field of fields) {
        const leaves = textLeaves(field.value);
        if (leaves.length === 0) continue;
        const without = (e: AgentEvent) => {
          const { [field.key]: _gone, ...rest } = e as unknown as Record<string, unknown>;
          try {
            return write(field.i, rest as unknown as AgentEvent);
          } catch {
            return undefined;
          }
        };
        const asIs = without(field.event);
        const anew = without(withoutKeptLine(field.event));
        if (asIs === undefined || anew === undefined) continue;
        const count = (text: string) => leaves.reduce((n, leaf) => n + text.split(leaf).length - 1, 0);
        if (count(asIs) > count(anew)) kept.push(label(field));
      }
      expect(kept).toEqual((deleted as Record<string, string[]>)[name] ?? []);
    });
  },
);

test('the structured fields tried are many', () => {
  expect(tried).toBeGreaterThan(300);
});
