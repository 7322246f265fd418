// Checks the hand-written guards share: each is written to accept exactly what the zod check it
// stands for accepts, so a format's fast path in front of its zod schemas reads the same way in
// every codec (the codecs' guard tests hold each guard equal to its schema).

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
