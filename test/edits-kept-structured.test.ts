import { describe, expect, test } from 'vitest';
import type { AgentEvent } from '../src/all';
import { sameJson } from '../src/json';
import { listFixtures } from '../src/node/fixtures';
import deleted from './edits-kept-structured.deleted.json';
import deletedNumbers from './edits-kept-structured.deleted-numbers.json';
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
// A deleted number (a usage's figures, a duration, a time) is looked for in what the output reads
// back as, not in its text: the output may read back as the field's value no more often than the
// event without its kept line does.
//
// edits-kept-structured.known.json, .deleted.json and .deleted-numbers.json are ratchets of what is still dropped (or
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

function hasNumber(value: unknown): boolean {
  if (typeof value === 'number') return true;
  if (Array.isArray(value)) return value.some(hasNumber);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasNumber);
  return false;
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
        // An object's numbers are edited too (a usage's figures have no text at all).
        const marks = hasNumber(field.value) ? [MARK, ...NUMBER_MARKS] : [MARK];
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

    test('a deleted number is not read back from the kept line', () => {
      // A number's digits are found anywhere (ids, times, other figures): what is read back is
      // compared instead, the events of the field's type that say its value.
      const { fields, write, parse } = keptFields(info, structured);
      const kept: string[] = [];
      for (const field of fields) {
        // A round is read back from where the event is (its step, its turn), not from a value
        // its record keeps: taken out, it comes back wherever the event is written.
        if (field.key === 'round' || textLeaves(field.value).length > 0 || !hasNumber(field.value)) continue;
        const saying = (e: AgentEvent) => {
          const { [field.key]: _gone, ...rest } = e as unknown as Record<string, unknown>;
          let text: string;
          try {
            text = write(field.i, rest as unknown as AgentEvent);
          } catch {
            return undefined;
          }
          return parse(text).filter(
            (x) => x.type === field.event.type && sameJson((x as never)[field.key], field.value),
          ).length;
        };
        const asIs = saying(field.event);
        const anew = saying(withoutKeptLine(field.event));
        if (asIs !== undefined && anew !== undefined && asIs > anew) kept.push(label(field));
      }
      expect(kept).toEqual((deletedNumbers as Record<string, string[]>)[name] ?? []);
    });
  },
);

test('the structured fields tried are many', () => {
  expect(tried).toBeGreaterThan(300);
});
