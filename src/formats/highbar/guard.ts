import type { HighbarRecordType } from './schema';

// A hand-written check of the zod schemas in schema.ts, for the decoder's hot path: it accepts
// what the schemas accept (test/highbar/guard.test.ts holds them together on generated records,
// near misses included), and anything it does not accept goes to zod, which decides and writes
// the report. The schemas stay the source of truth; this is only their fast path.

// zod's record check (`isPlainObject`): an object whose `constructor` is not a function, or is
// `Object`. Anything else is left to zod.
function isRecord(o: unknown): boolean {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return false;
  const ctor = (o as { constructor?: unknown }).constructor;
  return typeof ctor !== 'function' || ctor === Object;
}

function optionalString(x: unknown): boolean {
  return x === undefined || typeof x === 'string';
}

function optionalRecord(x: unknown): boolean {
  return x === undefined || isRecord(x);
}

function strings(x: unknown): boolean {
  if (!Array.isArray(x)) return false;
  for (let i = 0; i < x.length; i++) if (typeof x[i] !== 'string') return false;
  return true;
}

/**
 * True when `record` (a JSON object) is a valid record of `type` (or a v0 line): the checks of
 * the zod schema, written out. False means "ask zod", not "invalid".
 */
export function passesHighbarGuard(type: HighbarRecordType | 'v0', record: Record<string, unknown>): boolean {
  switch (type) {
    case 'tool':
      return (
        record.v === 1 &&
        record.type === 'tool' &&
        typeof record.fn === 'string' &&
        optionalRecord(record.args) &&
        optionalRecord(record.context)
      );
    case 'turn':
      return (
        record.v === 1 &&
        record.type === 'turn' &&
        optionalString(record.message) &&
        optionalString(record.response) &&
        optionalRecord(record.context)
      );
    case 'hello':
      return (
        record.v === 1 &&
        record.type === 'hello' &&
        optionalString(record.sdk) &&
        (record.pid === undefined || Number.isSafeInteger(record.pid)) &&
        (record.tools === undefined || strings(record.tools)) &&
        optionalRecord(record.context)
      );
    case 'tools':
      return (
        record.v === 1 && record.type === 'tools' && strings(record.names) && optionalRecord(record.context)
      );
    case 'v0':
      return (
        (record.v === undefined || record.v === 0) &&
        typeof record.fn === 'string' &&
        optionalRecord(record.args)
      );
  }
}
