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
