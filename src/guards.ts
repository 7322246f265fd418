import type { ZodMiniType } from 'zod/mini';

// What every format's validation shares. zod schemas are the source of each wire type and of the
// reports; on the hot path each record type is checked by a hand-written guard that accepts
// exactly what its schema accepts (each format's guard test holds them equal with fast-check),
// so zod runs only for a record the guard rejects, to say what is wrong. The pieces below are
// written to accept exactly what the zod check named in each accepts.

/** zod's record check (`isPlainObject`): a non-array object whose `constructor` is `Object` or not a function. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const ctor = (value as { constructor?: unknown }).constructor;
  return typeof ctor !== 'function' || ctor === Object;
}

/** `z.optional(z.string())`: absent or a string. */
export function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

/** `z.array(z.string())`. */
export function isStringArray(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
  return true;
}

/** `z.int()`: a safe integer. */
export function isInt(value: unknown): boolean {
  return Number.isSafeInteger(value);
}

// How many numbers past a double's range (`1e400`, which `JSON.parse` reads as Infinity) or sums
// and products past it the readers below have turned down, ever. Never reset: a record's reader
// compares it before and after the record ({@link nonFiniteReads}), so a count a writer or a
// checker adds between records, or a decoder nested in a diagnostic handler, cannot be taken for
// the wrong line's. Bumped only on that rare branch: the finite path is the one it always was.
let nonFinite = 0;

/**
 * How many non-finite numbers {@link num}, {@link finiteOr}, {@link isFiniteNumber} and
 * {@link nonFiniteSeen} have turned down so far. Each record's reader (src/codec.ts
 * `readRecord`, and the few framings that call a record decoder themselves) reads it before and
 * after the record, and warns once for the line when it moved: a field left out for being past
 * a double's range is never left out silently.
 */
export function nonFiniteReads(): number {
  return nonFinite;
}

/**
 * Notes one non-finite number a decoder turned down by a check of its own (a safe integer, a
 * product); returns `undefined`, what such a read gives.
 */
export function nonFiniteSeen(): undefined {
  nonFinite++;
  return undefined;
}

/** `z.number()`: a finite number. A non-finite one is counted ({@link nonFiniteReads}). */
export function isFiniteNumber(value: unknown): value is number {
  if (typeof value !== 'number') return false;
  if (Number.isFinite(value)) return true;
  nonFinite++;
  return false;
}

/** zod's object check (`looseObject`): a non-null, non-array object. */
export function isObjectValue(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The one report of a rejected record, as zod words it: zod's first three issues as
 * `path: message`, joined by `; ` (`prefix` before each path; `(record)` for the record itself
 * when there is no prefix). `undefined` when the schema accepts `value`. The codecs write the
 * same report without zod ({@link shapeProblems}); the tests hold the two equal.
 */
export function schemaProblems(schema: ZodMiniType, value: unknown, prefix = ''): string | undefined {
  const result = schema.safeParse(value);
  if (result.success) return undefined;
  return result.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? prefix + i.path.join('.') : prefix || '(record)'}: ${i.message}`)
    .join('; ');
}

/**
 * A zod schema's checks written out for the report of a rejected record: it adds to `out` the
 * path of every value the schema rejects, in the order zod reports them, and stops at the three
 * a report says. A record's schema stays the source of its type and its report; each format's
 * guard test holds the shape's report equal to zod's ({@link schemaProblems}) with fast-check,
 * so the decoders say what is wrong without loading zod.
 */
export type Shape = (value: unknown, path: string, out: string[]) => void;

/** Most issues a report says. */
const REPORTED = 3;

// Marked pure where it is called: a format that imports only the other guards bundles no shape.
function leaf(accepts: (value: unknown) => boolean): Shape {
  return (value, path, out) => {
    if (!accepts(value)) out.push(path);
  };
}

function under(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`;
}

/**
 * The shapes of zod/mini's checks the wire schemas use, named as zod names them (`object` is
 * `z.looseObject`, `record` is `z.record(z.string(), z.unknown())`).
 */
export const shape = {
  /** `z.string()`. */
  string: /* @__PURE__ */ leaf((v) => typeof v === 'string'),
  /** `z.int()`. */
  int: /* @__PURE__ */ leaf(isInt),
  /**
   * `z.int().check(z.minimum(0))`: an integer below the safe range fails both checks, and zod
   * says each.
   */
  nonNegativeInt: (value: unknown, path: string, out: string[]): void => {
    if (!Number.isInteger(value)) out.push(path);
    else {
      if (!isInt(value)) out.push(path);
      if ((value as number) < 0 && out.length < REPORTED) out.push(path);
    }
  },
  /** `z.number()`. */
  number: /* @__PURE__ */ leaf(isFiniteNumber),
  /** `z.boolean()`. */
  boolean: /* @__PURE__ */ leaf((v) => typeof v === 'boolean'),
  /** `z.record(z.string(), z.unknown())`. */
  record: /* @__PURE__ */ leaf(isPlainRecord),
  /** `z.literal(value)`, or `z.enum(values)` with several. */
  literal: (...values: unknown[]): Shape => leaf((v) => values.includes(v)),
  /** `z.optional(inner)`. */
  optional:
    (inner: Shape): Shape =>
    (value, path, out) => {
      if (value !== undefined) inner(value, path, out);
    },
  /** `z.nullable(inner)`. */
  nullable:
    (inner: Shape): Shape =>
    (value, path, out) => {
      if (value !== null) inner(value, path, out);
    },
  /** `z.array(item)`. */
  array:
    (item: Shape): Shape =>
    (value, path, out) => {
      if (!Array.isArray(value)) {
        out.push(path);
        return;
      }
      for (let i = 0; i < value.length && out.length < REPORTED; i++) item(value[i], under(path, i), out);
    },
  /** `z.looseObject(fields)`: the fields checked in their order, other keys let through. */
  object:
    (fields: Readonly<Record<string, Shape>>): Shape =>
    (value, path, out) => {
      if (!isObjectValue(value)) {
        out.push(path);
        return;
      }
      for (const key in fields) {
        if (out.length >= REPORTED) return;
        fields[key]!(value[key], under(path, key), out);
      }
    },
} as const;

/**
 * The report of a value `check` rejects, worded as {@link schemaProblems} words zod's (every
 * issue is zod/mini's `Invalid input`); `undefined` when `check` finds nothing wrong.
 */
export function shapeProblems(check: Shape, value: unknown, prefix = ''): string | undefined {
  const paths: string[] = [];
  check(value, '', paths);
  if (paths.length === 0) return undefined;
  return paths
    .slice(0, REPORTED)
    .map((p) => `${p !== '' ? prefix + p : prefix || '(record)'}: Invalid input`)
    .join('; ');
}

/** `value` when it is a string, else `undefined`: how decoders read an optional string field. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * `n` when finite, else `undefined`: a sum of counts a decoder read, which two counts near a
 * double's limit (`1e308 + 1e308`) take past it, to Infinity, where no count of the model is.
 * Counted when it is not finite ({@link nonFiniteReads}): the record's line gets a warning.
 */
export function finiteOr(n: number): number | undefined {
  if (Number.isFinite(n)) return n;
  nonFinite++;
  return undefined;
}

/**
 * `value` when it is a finite number, else `undefined`: how decoders read an optional number
 * field. The model's numbers are finite; a JSON number past a double's range (`1e400`) reads as
 * Infinity, which is no count, cost or duration: it is left out, and counted
 * ({@link nonFiniteReads}) so the record's line gets a warning that says so (docs/limits.md).
 */
export function num(value: unknown): number | undefined {
  if (typeof value !== 'number') return undefined;
  if (Number.isFinite(value)) return value;
  nonFinite++;
  return undefined;
}

/**
 * The first of `fields` that is not a string in `record`, said as a diagnostic's words, or
 * `undefined` when all are strings: the required-fields check of a record type.
 */
export function missingString(
  record: Record<string, unknown>,
  fields: readonly string[],
): string | undefined {
  for (const f of fields) if (typeof record[f] !== 'string') return `"${f}" is not a string`;
  return undefined;
}

/**
 * Whether an `approval.resolve` decision (`allow`, `deny` or a format's own word) lets the action
 * run: what a writer puts in a protocol's yes/no `approved` slot.
 */
export function decisionAllows(decision: string): boolean {
  return /^(allow|approve|approved|accept|yes|allow_once|allow_always)/i.test(decision);
}

/**
 * Whether `value` is one of `words` (a format's record types): a guard for the list's union.
 * One test for the formats' `is…RecordType` exports, which each spelled it.
 */
export function isOneOf<W extends string>(words: readonly W[], value: unknown): value is W {
  return typeof value === 'string' && (words as readonly string[]).includes(value);
}

/**
 * A lookup from a parsed word (a record's `type`) to the same word in `words`, or `undefined`
 * for any other value. `JSON.parse` gives a fresh string for every value it reads, and each keyed
 * lookup, `Set` test or `switch` with it compares or hashes its characters again; the word this
 * returns is the module's own literal, which later comparisons and lookups match by identity. One
 * comparison per word of the same length (docs/performance.md, "AG-UI and AI SDK codecs").
 */
export function wordLookup<W extends string>(words: readonly W[]): (value: unknown) => W | undefined {
  const byLength: W[][] = [];
  for (const w of words) (byLength[w.length] ??= []).push(w);
  return (value) => {
    if (typeof value !== 'string') return undefined;
    const same = byLength[value.length];
    if (same === undefined) return undefined;
    for (let i = 0; i < same.length; i++) if (same[i] === value) return same[i];
    return undefined;
  };
}
