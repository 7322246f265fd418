import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import type { Format } from '../../src/diagnostics';

// Structure-aware mutation for the structured fuzzer (structured.test.ts). A stream is read into
// records (a JSONL line, an SSE event's `data:` payload with its other field lines, an element of
// a nativeharness JSON array), each record's JSON into a tree that keeps what JSON.parse loses: the
// order and repetition of keys and the exact text of a scalar (`-0`, `1e400`, `9007199254740993`).
// A mutation edits that tree or the list of records; the stream is then written back. The inputs
// so made get past JSON.parse and reach each format's mapping code, which byte-level mutation
// rarely does.

/** A JSON value as written: object entries in order (keys may repeat), scalars as their text. */
export type Node =
  | { readonly k: 'obj'; e: Array<[string, Node]> }
  | { readonly k: 'arr'; a: Node[] }
  | { readonly k: 'lit'; t: string };

/** One record: JSON (with an SSE event's other field lines) or a line that is not JSON, kept as is. */
export type Rec = { json: Node; fields: string[] } | { raw: string };

/** How the records are framed. */
export type Framing = 'jsonl' | 'sse' | 'json';

/** A stream read into records. */
export interface Stream {
  readonly name: string;
  readonly format: Format;
  readonly framing: Framing;
  records: Rec[];
}

/** A parsed JSON value as a tree. */
export function toNode(value: unknown): Node {
  if (Array.isArray(value)) return { k: 'arr', a: value.map(toNode) };
  if (typeof value === 'object' && value !== null)
    return { k: 'obj', e: Object.entries(value).map(([key, v]) => [key, toNode(v)]) };
  return { k: 'lit', t: JSON.stringify(value) };
}

/** The tree's JSON text (iterative: a mutation may nest far past the call stack's depth). */
export function write(root: Node): string {
  const out: string[] = [];
  const stack: Array<Node | string> = [root];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    if (item.k === 'lit') out.push(item.t);
    else if (item.k === 'arr') {
      stack.push(']');
      for (let i = item.a.length - 1; i >= 0; i--) {
        stack.push(item.a[i]!);
        if (i > 0) stack.push(',');
      }
      stack.push('[');
    } else {
      stack.push('}');
      for (let i = item.e.length - 1; i >= 0; i--) {
        const [key, v] = item.e[i]!;
        stack.push(v);
        stack.push(`${JSON.stringify(key)}:`);
        if (i > 0) stack.push(',');
      }
      stack.push('{');
    }
  }
  return out.join('');
}

function clone(n: Node): Node {
  if (n.k === 'lit') return n;
  if (n.k === 'arr') return { k: 'arr', a: n.a.map(clone) };
  return { k: 'obj', e: n.e.map(([key, v]) => [key, clone(v)]) };
}

function cloneRec(r: Rec): Rec {
  return 'raw' in r ? r : { json: clone(r.json), fields: [...r.fields] };
}

function record(text: string, fields: string[] = []): Rec {
  try {
    return { json: toNode(JSON.parse(text)), fields };
  } catch {
    return { raw: fields.length > 0 ? `${fields.join('\n')}\ndata: ${text}` : text };
  }
}

function readSse(text: string): Rec[] {
  const out: Rec[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n\n+/)) {
    if (block.trim() === '') continue;
    const lines = block.split('\n');
    const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.replace(/^data: ?/, ''));
    const fields = lines.filter((l) => !l.startsWith('data:'));
    if (data.length === 1) out.push(record(data[0]!, fields));
    else out.push({ raw: block });
  }
  return out;
}

/** Reads a stream's text into records. */
export function readStream(name: string, format: Format, framing: Framing, text: string): Stream {
  let records: Rec[];
  if (framing === 'sse') records = readSse(text);
  else if (framing === 'json') {
    const all = JSON.parse(text) as unknown[];
    records = all.map((v) => ({ json: toNode(v), fields: [] }));
  } else
    records = text
      .replace(/\r\n/g, '\n')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => record(l));
  return { name, format, framing, records };
}

/** The stream's text; `cut` (0..1) keeps that fraction of the last record's bytes. */
export function writeStream(s: Stream, crlf = false, cut?: number): string {
  const nl = crlf ? '\r\n' : '\n';
  const texts = s.records.map((r) => {
    if ('raw' in r) return s.framing === 'sse' ? `${r.raw}${nl}${nl}` : r.raw;
    const json = write(r.json);
    if (s.framing === 'sse') return `${[...r.fields, `data: ${json}`].join(nl)}${nl}${nl}`;
    return json;
  });
  let text: string;
  if (s.framing === 'sse') text = texts.join('');
  else if (s.framing === 'json') text = `[${nl}${texts.join(`,${nl}`)}${nl}]${nl}`;
  else text = texts.length === 0 ? '' : `${texts.join(nl)}${nl}`;
  if (cut !== undefined && texts.length > 0) {
    const last = texts[texts.length - 1]!.length;
    text = text.slice(
      0,
      text.length - last - (s.framing === 'jsonl' ? nl.length : 0) + Math.floor(last * cut),
    );
  }
  return text;
}

// The project's fixtures and the reference captures.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CAPTURES = `${ROOT}../shared/captures/`;
const CAPTURE_DIRS: Record<string, Format> = {
  'claude-code': 'claude',
  codex: 'codex',
  'gemini-cli': 'gemini',
  opencode: 'opencode',
  cursor: 'cursor',
};

function framingOf(file: string): Framing | undefined {
  if (file.endsWith('.golden.json')) return undefined;
  if (file.endsWith('.jsonl')) return 'jsonl';
  if (file.endsWith('.sse')) return 'sse';
  if (file.endsWith('.json')) return 'json';
  return undefined;
}

/** Every fixture of every format, and every capture when ../shared/captures is there. */
export function corpus(formats: readonly Format[]): Stream[] {
  const out: Stream[] = [];
  for (const format of formats) {
    const dir = `${ROOT}fixtures/${format}/`;
    for (const f of readdirSync(dir).sort()) {
      const framing = framingOf(f);
      if (framing !== undefined)
        out.push(readStream(`fixtures/${format}/${f}`, format, framing, readFileSync(dir + f, 'utf8')));
    }
  }
  if (existsSync(CAPTURES))
    for (const [dir, format] of Object.entries(CAPTURE_DIRS)) {
      if (!existsSync(CAPTURES + dir)) continue;
      for (const f of readdirSync(CAPTURES + dir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()) {
        // The capture authors' `#` comment lines are not wire output.
        const text = readFileSync(`${CAPTURES}${dir}/${f}`, 'utf8')
          .split('\n')
          .filter((l) => !l.startsWith('#'))
          .join('\n');
        out.push(readStream(`captures/${dir}/${f}`, format, 'jsonl', text));
      }
    }
  return out;
}

/** What a format's records hold, to mutate with: each key's values and every `type` seen. */
export interface Pool {
  readonly byKey: Map<string, Node[]>;
  readonly keys: string[];
  readonly records: Rec[];
}

export function pools(streams: readonly Stream[]): Map<Format, Pool> {
  const out = new Map<Format, Pool>();
  for (const s of streams) {
    let pool = out.get(s.format);
    if (pool === undefined) {
      pool = { byKey: new Map(), keys: [], records: [] };
      out.set(s.format, pool);
    }
    for (const r of s.records) {
      pool.records.push(r);
      if ('json' in r) collect(r.json, pool);
    }
  }
  for (const pool of out.values()) pool.keys.push(...pool.byKey.keys());
  return out;
}

function collect(root: Node, pool: Pool): void {
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.k === 'arr') stack.push(...n.a);
    else if (n.k === 'obj')
      for (const [key, v] of n.e) {
        let vs = pool.byKey.get(key);
        if (vs === undefined) pool.byKey.set(key, (vs = []));
        // A few distinct values per key are enough (and keep the pools small).
        if (vs.length < 40 && !vs.some((x) => x.k === 'lit' && v.k === 'lit' && x.t === v.t)) vs.push(v);
        stack.push(v);
      }
  }
}

// Mutations. Each is data fast-check makes and shrinks (an operation and a few numbers), applied
// to a copy of a stream by `mutate`.

/** Scalars that break mapping code: edge numbers written exactly, and strings that look like them. */
const NUMBERS = [
  '-1',
  '0',
  '1',
  '-0',
  '1e308',
  '1e400',
  '-1e400',
  '9007199254740993',
  '1.5',
  '-2147483649',
  '1e-400',
  // The edges of a double and of an exact integer, and texts JSON.stringify never writes (an
  // exponent's capital E and plus sign, `-0.0`): a writer that writes the parsed value changes them.
  '9007199254740992',
  '5e-324',
  '-1e308',
  '1.7976931348623157e308',
  '8640000000000001',
  '1E+2',
  '1e21',
  '-0.0',
  '0.1',
  '4294967296',
];
const STRINGS = [
  '""',
  '"NaN"',
  '"Infinity"',
  '"-1"',
  '"1e999"',
  '"0"',
  '"__proto__"',
  '"constructor"',
  '"toString"',
  '"\\ud800"',
  '"\\u0000"',
  '"2026-01-01T00:00:00Z"',
  '"not a date"',
  '"null"',
  '"{\\"a\\":1}"',
  '"[1,2"',
  // The other lone surrogate, a pair, one before a plain character; U+2028 and a BOM written raw
  // (JSON allows both unescaped) and escaped; a CR LF inside a value.
  '"\\udc00"',
  '"\\ud83d\\ude00"',
  '"\\ud800A"',
  '"\u2028"',
  '"\\u2028"',
  '"\ufeff"',
  '"\\ufeffx"',
  '"a\\r\\nb"',
];
const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'length', '', 'x'];
const LONG = [100, 5000, 70_000, 1_000_000];
/** The line bound every JSONL and SSE reader has by default (src/framing/lines.ts). */
const LINE_CAP = 1024 * 1024;
const utf8 = new TextEncoder();

export type Op =
  | { op: 'retype'; at: number; to: number }
  | { op: 'delete'; at: number }
  | { op: 'addKey'; at: number; key: number; to: number }
  | { op: 'dupKey'; at: number; to: number; before: boolean }
  | { op: 'reorder'; at: number; by: number }
  | { op: 'number'; at: number; to: number }
  | { op: 'string'; at: number; to: number }
  | { op: 'long'; at: number; size: number }
  | { op: 'empty'; at: number; to: number }
  | { op: 'deep'; at: number; depth: number; obj: boolean }
  | { op: 'swapType'; at: number; to: number }
  | { op: 'borrow'; at: number; to: number }
  | { op: 'foreign'; to: number }
  | { op: 'drop' }
  | { op: 'repeat' }
  | { op: 'move'; to: number }
  | { op: 'truncate' }
  | { op: 'frame'; how: number };

/** One mutation of a stream: which record, and what. */
export interface Mutation {
  record: number;
  op: Op;
}

const n = fc.nat({ max: 1_000_000 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('retype' as const), at: n, to: n }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), at: n }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('addKey' as const), at: n, key: n, to: n }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('dupKey' as const), at: n, to: n, before: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reorder' as const), at: n, by: n }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('number' as const), at: n, to: n }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('string' as const), at: n, to: n }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('long' as const), at: n, size: n }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('empty' as const), at: n, to: n }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('deep' as const),
      at: n,
      depth: fc.integer({ min: 1, max: 80 }),
      obj: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('swapType' as const), at: n, to: n }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('borrow' as const), at: n, to: n }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('foreign' as const), to: n }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('drop' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('repeat' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('move' as const), to: n }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('truncate' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('frame' as const), how: n }) },
);

/** A few mutations. */
export const mutations: fc.Arbitrary<Mutation[]> = fc.array(fc.record({ record: n, op }), {
  minLength: 1,
  maxLength: 6,
});

interface Place {
  node: Node;
  parent: Node | undefined;
  index: number; // in the parent's entries or items
}

function places(root: Node): Place[] {
  const out: Place[] = [{ node: root, parent: undefined, index: -1 }];
  const stack = [root];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (p.k === 'arr')
      p.a.forEach((c, index) => {
        out.push({ node: c, parent: p, index });
        stack.push(c);
      });
    else if (p.k === 'obj')
      p.e.forEach(([, c], index) => {
        out.push({ node: c, parent: p, index });
        stack.push(c);
      });
  }
  return out;
}

function replace(place: Place, root: { json: Node }, by: Node): void {
  const { parent, index } = place;
  if (parent === undefined) root.json = by;
  else if (parent.k === 'arr') parent.a[index] = by;
  else if (parent.k === 'obj') parent.e[index]![1] = by;
}

const lit = (t: string): Node => ({ k: 'lit', t });
const OTHER_TYPES: Node[] = [
  lit('"x"'),
  lit('42'),
  lit('null'),
  lit('true'),
  lit('false'),
  { k: 'arr', a: [lit('1'), lit('"a"')] },
  { k: 'obj', e: [['a', lit('1')]] },
  { k: 'arr', a: [] },
  { k: 'obj', e: [] },
];

function pick<T>(xs: readonly T[], i: number): T | undefined {
  return xs.length === 0 ? undefined : xs[i % xs.length];
}

/**
 * The string at `place` filled with ASCII so that the record's line is the line bound's size
 * `over` bytes off (-1, 0 or 1): a line one byte short of the bound, at it, and one past it (the
 * bound counts no terminator, so a CR LF stream's CR must not count either). False when the rest of
 * the record is already longer.
 */
function fillToCap(place: Place, r: { json: Node }, framing: Framing, over: number): boolean {
  replace(place, r, lit('""'));
  const prefix = framing === 'sse' ? 'data: '.length : 0;
  const fill = LINE_CAP + over - prefix - utf8.encode(write(r.json)).length;
  if (fill < 0) return false;
  replace(place, r, lit(`"${'a'.repeat(fill)}"`));
  return true;
}

function mutateRecord(r: { json: Node; fields: string[] }, o: Op, pool: Pool, framing: Framing): void {
  if (!('at' in o)) return;
  const all = places(r.json);
  const place = all[o.at % all.length]!;
  const objects = all.filter((p) => p.node.k === 'obj');
  const object = pick(objects, o.at)?.node as { k: 'obj'; e: Array<[string, Node]> } | undefined;
  switch (o.op) {
    case 'retype':
      replace(place, r, clone(pick(OTHER_TYPES, o.to)!));
      return;
    case 'delete':
      if (place.parent?.k === 'obj') place.parent.e.splice(place.index, 1);
      else if (place.parent?.k === 'arr') place.parent.a.splice(place.index, 1);
      return;
    case 'addKey': {
      if (object === undefined) return;
      const keys = [...KEYS, ...pool.keys];
      const value = pick([...OTHER_TYPES, ...(pool.byKey.get(pick(keys, o.key)!) ?? [])], o.to)!;
      object.e.splice(o.to % (object.e.length + 1), 0, [pick(keys, o.key)!, clone(value)]);
      return;
    }
    case 'dupKey': {
      if (object === undefined || object.e.length === 0) return;
      const i = o.to % object.e.length;
      const [key] = object.e[i]!;
      object.e.splice(o.before ? i : i + 1, 0, [key, clone(pick(OTHER_TYPES, o.to)!)]);
      return;
    }
    case 'reorder': {
      if (object === undefined || object.e.length < 2) return;
      const by = o.by % object.e.length;
      object.e = [...object.e.slice(by), ...object.e.slice(0, by)].reverse();
      return;
    }
    case 'number':
      replace(place, r, lit(pick(NUMBERS, o.to)!));
      return;
    case 'string':
      replace(place, r, lit(pick(STRINGS, o.to)!));
      return;
    case 'long': {
      const size = pick(LONG, o.size)!;
      // Half the million-byte strings fill the record's line to the line bound instead (a
      // nativeharness JSON array's elements have a bound four times that: no line bound there).
      if (size === LONG.at(-1) && framing !== 'json' && (o.size >> 2) % 2 === 1) {
        if (fillToCap(place, r, framing, ((o.size >> 3) % 3) - 1)) return;
      }
      // Mostly ASCII, with characters that JSON escapes and multi-byte UTF-8 now and then: the 9
      // characters take 15 bytes written, so the string's text stays within `size` bytes.
      const chars = Math.floor((size * 9) / 15);
      replace(place, r, lit(JSON.stringify('ab"\\\n é😀'.repeat(Math.ceil(chars / 9)).slice(0, chars))));
      return;
    }
    case 'empty':
      replace(place, r, pick([lit('""'), { k: 'arr', a: [] }, { k: 'obj', e: [] }], o.to)!);
      return;
    case 'deep': {
      let v = place.node;
      for (let d = 0; d < o.depth; d++) v = o.obj ? { k: 'obj', e: [['a', v]] } : { k: 'arr', a: [v] };
      replace(place, r, v);
      return;
    }
    case 'swapType': {
      // A record (or a nested object with a `type`) of type A given type B: A's fields under B's name.
      const typed = objects.filter((p) =>
        (p.node as { e: Array<[string, Node]> }).e.some(([k]) => k === 'type' || k === 'subtype'),
      );
      const target = pick(typed, o.at)?.node as { k: 'obj'; e: Array<[string, Node]> } | undefined;
      if (target === undefined) return;
      for (const entry of target.e) {
        if (entry[0] !== 'type' && entry[0] !== 'subtype') continue;
        const other = pick(pool.byKey.get(entry[0]) ?? [], o.to);
        if (other !== undefined) entry[1] = clone(other);
      }
      // An SSE event's name follows (nativeharness names each event after its type) half the time.
      const type = target.e.find(([k]) => k === 'type')?.[1];
      if (target === r.json && type?.k === 'lit' && o.to % 2 === 0)
        r.fields = r.fields.map((f) => (f.startsWith('event:') ? `event: ${JSON.parse(type.t)}` : f));
      return;
    }
    case 'borrow': {
      // A key's value from another record of the format: ids moved between records, B's payload in A.
      if (object === undefined || object.e.length === 0) return;
      const entry = object.e[o.to % object.e.length]!;
      const other = pick(pool.byKey.get(entry[0]) ?? [], o.to >> 3);
      if (other !== undefined) entry[1] = clone(other);
      return;
    }
  }
}

/**
 * A record's text with what its framing does not expect around it: a BOM before it (content
 * anywhere but at byte 0), a line that ends in a lone CR (SSE: every line of the event; JSONL: a CR
 * before the LF, one CR LF line in an LF stream, or a CR CR LF in a CR LF one), a tab before or
 * after it, or a NUL after it. The record becomes raw text, kept as is by later mutations.
 */
function framed(r: Rec, framing: Framing, how: number): Rec {
  const json = 'raw' in r ? undefined : write(r.json);
  const fields = 'raw' in r ? [] : r.fields;
  const around = [
    (t: string) => `\ufeff${t}`,
    (t: string) => `${t}\r`,
    (t: string) => `\t${t}\t`,
    (t: string) => `${t}\u0000`,
  ][how % 4]!;
  if (framing === 'sse') {
    if (json === undefined) return r;
    // A lone CR ends each line of the event, as the SSE grammar allows, the last one's just
    // before the stream's own LF (a CR LF, one terminator however the chunks cut it).
    if (how % 4 === 1) return { raw: `${[...fields, `data: ${json}`].join('\r')}\r` };
    return { raw: [...fields, `data: ${around(json)}`].join('\n') };
  }
  return { raw: around(json ?? (r as { raw: string }).raw) };
}

/** Applies `ms` to a copy of `s`; returns the copy and where to cut its last record (or undefined). */
export function mutate(
  s: Stream,
  ms: readonly Mutation[],
  pool: Pool,
): { stream: Stream; cut: number | undefined } {
  const records = s.records.map(cloneRec);
  let cut: number | undefined;
  for (const m of ms) {
    if (records.length === 0) break;
    const i = m.record % records.length;
    const o = m.op;
    if (o.op === 'drop') records.splice(i, 1);
    else if (o.op === 'repeat') records.splice(i, 0, cloneRec(records[i]!));
    else if (o.op === 'move') {
      const [r] = records.splice(i, 1);
      records.splice(o.to % (records.length + 1), 0, r!);
    } else if (o.op === 'foreign') {
      const r = pick(pool.records, o.to);
      if (r !== undefined) records.splice(i, 0, cloneRec(r));
    } else if (o.op === 'truncate') {
      // The stream cut after record i, half the time in the middle of record i.
      records.splice(i + 1);
      cut = m.record % 2 === 0 ? undefined : ((m.record >> 1) % 97) / 97;
    } else {
      const r = records[i]!;
      if (o.op === 'frame') records[i] = framed(r, s.framing, o.how);
      else if ('json' in r) mutateRecord(r, o, pool, s.framing);
    }
  }
  return { stream: { ...s, records }, cut };
}
