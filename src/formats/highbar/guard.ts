import { isOptionalString, isPlainRecord, isStringArray } from '../../guards';
import type { HighbarRecordType } from './schema';

// A hand-written check of the zod schemas in schema.ts, for the decoder's hot path: it accepts
// what the schemas accept (test/highbar/guard.test.ts holds them together on generated records,
// near misses included), and anything it does not accept goes to zod, which decides and writes
// the report. The schemas stay the source of truth; this is only their fast path.

function optionalRecord(x: unknown): boolean {
  return x === undefined || isPlainRecord(x);
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
        isOptionalString(record.message) &&
        isOptionalString(record.response) &&
        optionalRecord(record.context)
      );
    case 'hello':
      return (
        record.v === 1 &&
        record.type === 'hello' &&
        isOptionalString(record.sdk) &&
        (record.pid === undefined || Number.isSafeInteger(record.pid)) &&
        (record.tools === undefined || isStringArray(record.tools)) &&
        optionalRecord(record.context)
      );
    case 'tools':
      return (
        record.v === 1 &&
        record.type === 'tools' &&
        isStringArray(record.names) &&
        optionalRecord(record.context)
      );
    case 'v0':
      return (
        (record.v === undefined || record.v === 0) &&
        typeof record.fn === 'string' &&
        optionalRecord(record.args)
      );
  }
}
