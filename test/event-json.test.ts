import fc from 'fast-check';
import { expect, test } from 'vitest';
import { highbar } from '../src/all';
import { eventJson } from '../src/event-json';
import { FUZZ_RUNS } from './runs';

// What `agentwire decode` prints is `JSON.stringify(event)` byte for byte (issue #24): the CLI's
// shortcut for a tool.end whose text repeats its result or error (src/event-json.ts) must print
// the same text for any such object, whatever its keys, their order and values.

const RUNS = FUZZ_RUNS * 5;

/** Strings of any UTF-16 units: escapes, control characters, lone surrogates, pairs. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', '"', '\\', '\n', '\u2028', '\ud800', '\udc00x', '\ud83d\ude00', '\u007f', '\u0000'),
);

const leaf = fc.oneof(
  anyText,
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.constant(new Date(0)),
  fc.constant({ toJSON: (key: string) => `key ${key}` }),
);
const value = fc.oneof(
  { weight: 4, arbitrary: leaf },
  { weight: 1, arbitrary: fc.array(leaf, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(anyText, leaf, { maxKeys: 3 }) },
);

/** A tool.end-like object: its keys in any order, `text` often one of its other string values. */
const toolEnd = fc
  .record({
    text: anyText,
    shared: fc.constantFrom('result', 'error', 'both', 'neither'),
    result: value,
    error: value,
    others: fc.dictionary(fc.oneof(anyText, fc.constantFrom('0', '1', '__proto__x', 'call')), value, {
      maxKeys: 4,
    }),
    order: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
    type: fc.constantFrom('tool.end', 'tool.end', 'tool.start'),
  })
  .map(({ text, shared, result, error, others, order, type }) => {
    const fields: Array<[string, unknown]> = [
      ['type', type],
      ['text', text],
      ['result', shared === 'result' || shared === 'both' ? text : result],
      ['error', shared === 'error' || shared === 'both' ? text : error],
      ...Object.entries(others),
    ];
    const sorted = fields.map((f, i) => [order[i % order.length]!, f] as const).sort((a, b) => a[0] - b[0]);
    const event: Record<string, unknown> = {};
    for (const [, [k, v]] of sorted) event[k] = v;
    return event;
  });

test('eventJson prints what JSON.stringify prints, for any tool.end-like object', () => {
  fc.assert(
    fc.property(toolEnd, (event) => {
      expect(eventJson(event)).toBe(JSON.stringify(event));
    }),
    { numRuns: RUNS },
  );
});

test('eventJson prints what JSON.stringify prints, for the events of highbar tool records', () => {
  fc.assert(
    fc.property(anyText, fc.constantFrom('null', '"x"', 'same'), (out, error) => {
      const quoted = JSON.stringify(out);
      const line = `{"v": 1, "type": "tool", "ts": 1796636085.163, "fn": "read", "args": {}, "result": ${quoted}, "error": ${error === 'same' ? quoted : error}, "started_at": 1796636085.163, "ended_at": 1796636085.2}\n`;
      const decoder = highbar.createDecoder();
      const events = [...decoder.push(line), ...decoder.end()];
      expect(events.some((e) => e.type === 'tool.end')).toBe(true);
      for (const e of events) expect(eventJson(e)).toBe(JSON.stringify(e));
    }),
    { numRuns: RUNS },
  );
});
