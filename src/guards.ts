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

/** `z.number()`: a finite number. */
export function isFiniteNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

/** zod's object check (`looseObject`): a non-null, non-array object. */
export function isObjectValue(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The one report of a rejected record: zod's first three issues as `path: message`, joined by
 * `; ` (`prefix` before each path; `(record)` for the record itself when there is no prefix).
 * `undefined` when the schema accepts `value`.
 */
export function schemaProblems(schema: ZodMiniType, value: unknown, prefix = ''): string | undefined {
  const result = schema.safeParse(value);
  if (result.success) return undefined;
  return result.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? prefix + i.path.join('.') : prefix || '(record)'}: ${i.message}`)
    .join('; ');
}

/** `value` when it is a string, else `undefined`: how decoders read an optional string field. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `value` when it is a number (any, `NaN` included), else `undefined`. */
export function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
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
