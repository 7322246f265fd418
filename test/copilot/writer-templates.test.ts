import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { type AgentEvent, copilot } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { type CopilotEncodeOptions, CopilotEncoder } from '../../src/formats/copilot/encode';
import { FUZZ_RUNS } from '../runs';

// The Copilot writer writes the frequent records built from the model from templates (an
// `assistant.message_delta`'s data spelled out, the envelope's plain pieces quoted as they are,
// a burst's timestamp written once). These properties hold it equal to the general path (the
// same writer with templates off: `JSON.stringify` of every data, `jsonString` of every piece):
// the same bytes, the same loss reports, the same error, on events built by hand or converted
// (any text, ids with escapes, times repeated or not, lanes) and on events decoded from Copilot,
// edited or not.

const RUNS = FUZZ_RUNS * 5;

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u2028', 'a', 'é', '\ud800', '😀') }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const id = fc.oneof(fc.constantFrom('m-1', 'm-2', 'call-1'), text);
const ts = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  {
    weight: 4,
    arbitrary: fc.oneof(
      fc.constantFrom(1767225600000, 1767225600001, 1767225660000, 0, -1),
      fc.integer({ min: 1767225600000, max: 1767225720000 }),
    ),
  },
  // No time a timestamp can hold: an error, the same one either way.
  { weight: 1, arbitrary: fc.constantFrom(1.5, 8.64e15 + 1) },
);
// A value where the model says text or a number, as a program may hand in anything: numbers
// JSON spells otherwise (-0, 1e21) or not at all (NaN), objects, a Date (toJSON), a BigInt.
const odd = fc.oneof(
  text,
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21, 2 ** 53 + 2),
  fc.constantFrom(new Date(0), 10n, { a: undefined, b: () => 1 }, [undefined, 1]),
);
const lane = fc.option(fc.constantFrom('agent-1', 'a"b'), { nil: undefined, freq: 4 });

// Events as another format or a program hands them in: no Copilot provenance.
const foreign: fc.Arbitrary<AgentEvent> = fc
  .tuple(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({ type: fc.constant('text.delta'), text }, { requiredKeys: ['type', 'text'] }),
      },
      {
        weight: 3,
        arbitrary: fc.tuple(text, id).map(([t, m]) => ({ type: 'text.delta', text: t, message: m })),
      },
      { weight: 1, arbitrary: fc.constant({ type: 'text.delta', text: 5 }) },
      { weight: 1, arbitrary: fc.tuple(text).map(([t]) => ({ type: 'text.delta', text: t, message: 7 })) },
      {
        weight: 2,
        arbitrary: fc.option(id, { nil: undefined }).map((m) => ({
          type: 'message.start',
          role: 'assistant',
          ...(m === undefined ? {} : { message: m }),
        })),
      },
      {
        weight: 1,
        arbitrary: fc
          .option(id, { nil: undefined })
          .map((m) => ({ type: 'message.end', ...(m === undefined ? {} : { message: m }) })),
      },
      { weight: 1, arbitrary: fc.nat({ max: 5 }).map((round) => ({ type: 'round.start', round })) },
      { weight: 1, arbitrary: fc.constant({ type: 'round.end', usage: { input: 3, output: 2 } }) },
      {
        weight: 1,
        arbitrary: fc.option(text, { nil: undefined }).map((input) => ({ type: 'run.start', input })),
      },
      { weight: 1, arbitrary: fc.constant({ type: 'run.end', status: 'completed' }) },
      { weight: 1, arbitrary: text.map((t) => ({ type: 'reasoning.delta', text: t })) },
      {
        weight: 1,
        arbitrary: fc.tuple(id, text).map(([call, t]) => ({ type: 'tool.output', call, text: t })),
      },
      {
        weight: 1,
        arbitrary: fc.constant({ type: 'tool.start', call: 'call-1', name: 'read', args: { a: 1 } }),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(id, text, fc.option(odd, { nil: undefined }), fc.option(text, { nil: undefined }))
          .map(([call, name, args, server]) => ({ type: 'tool.start', call, name, args, server })),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(id, odd).map(([call, t]) => ({ type: 'tool.output', call, text: t })),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            id,
            fc.option(fc.boolean(), { nil: undefined }),
            fc.option(text, { nil: undefined }),
            odd,
            odd,
          )
          .map(([call, ok, t, result, error]) => ({ type: 'tool.end', call, ok, text: t, result, error })),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.option(text, { nil: undefined }),
            odd,
            fc.option(fc.nat(), { nil: undefined }),
            fc.option(id, { nil: undefined }),
          )
          .map(([model, input, output, key]) => ({
            type: 'usage',
            usage: { model, input, output, key, scope: 'call' },
          })),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(text, odd).map(([model, round]) => ({ type: 'round.start', model, round })),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.option(text, { nil: undefined }), fc.nat())
          .map(([model, input]) => ({ type: 'round.end', model, usage: { input, cacheRead: 1 } })),
      },
      { weight: 1, arbitrary: odd.map((t) => ({ type: 'user.message', text: t })) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(odd, odd)
          .map(([message, code]) => ({ type: 'error', message, code, fatal: false })),
      },
      { weight: 1, arbitrary: fc.option(odd, { nil: undefined }).map((by) => ({ type: 'cancel', by })) },
      { weight: 1, arbitrary: odd.map((trigger) => ({ type: 'compaction.start', trigger })) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            odd,
            fc.option(fc.nat(), { nil: undefined }),
            fc.constantFrom(undefined, 5, -0, 1e21, Number.NaN),
          )
          .map(([trigger, tokensFreed, tokensBefore]) => ({
            type: 'compaction.end',
            trigger,
            tokensFreed,
            tokensBefore,
          })),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(odd, id).map(([t, m]) => ({ type: 'reasoning.delta', text: t, message: m })),
      },
    ),
    ts,
    lane,
    fc.boolean(),
  )
  .map(([e, t, l, extra]) => {
    const event = { ...e } as Record<string, unknown>;
    if (event.input === undefined) delete event.input;
    if (t !== undefined) event.ts = t;
    if (l !== undefined) event.lane = l;
    // A field Copilot has no place for: reported as a loss, the same way on both paths.
    if (extra) event.redacted = true;
    return event as unknown as AgentEvent;
  });

interface Written {
  text: string;
  error?: string;
  diagnostics: Diagnostic[];
}

function write(events: AgentEvent[], templates: boolean, options: CopilotEncodeOptions): Written {
  const diagnostics: Diagnostic[] = [];
  const e = new CopilotEncoder(options, { report: (d) => diagnostics.push(d) }, templates);
  let text = '';
  try {
    for (const ev of events) text += e.write(ev);
    text += e.end();
  } catch (error) {
    return { text, error: String(error), diagnostics };
  }
  return { text, diagnostics };
}

// Deterministic ids (with escapes, so they are quoted) and a clock that repeats its ms.
function options(): CopilotEncodeOptions {
  let n = 0;
  let t = 1767225600000;
  return {
    idSource: () => (n % 3 === 0 ? `id-${++n}` : `id"${++n}`),
    clock: () => (t += n % 2),
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('copilot writer: template writes', () => {
  test('property: events built by hand are written the same with templates on and off', () => {
    fc.assert(
      fc.property(fc.array(foreign, { maxLength: 12 }), (events) => {
        expect(write(events, true, options())).toEqual(write(events, false, options()));
      }),
      { numRuns: RUNS },
    );
  });

  test('property: with the default ids (UUIDs, quoted as they are) too', () => {
    fc.assert(
      fc.property(fc.array(foreign, { maxLength: 12 }), (events) => {
        const run = (templates: boolean) => {
          let n = 0;
          vi.spyOn(globalThis.crypto, 'randomUUID').mockImplementation(
            () =>
              `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` as `${string}-${string}-${string}-${string}-${string}`,
          );
          const out = write(events, templates, { clock: () => 1767225600000 });
          vi.restoreAllMocks();
          return out;
        };
        expect(run(true)).toEqual(run(false));
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  test('property: with an idSource that hands out numbers now and then, too', () => {
    const odd = (): CopilotEncodeOptions => {
      let n = 0;
      return {
        idSource: () => (++n % 2 === 0 ? (n as unknown as string) : `id-${n}`),
        clock: () => 1767225600000,
      };
    };
    fc.assert(
      fc.property(fc.array(foreign, { maxLength: 12 }), (events) => {
        expect(write(events, true, odd())).toEqual(write(events, false, odd()));
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  test('property: events decoded from Copilot, edited or not, are written the same', () => {
    fc.assert(
      fc.property(
        fc.array(foreign, { minLength: 1, maxLength: 10 }),
        fc.array(fc.tuple(fc.nat(), text), { maxLength: 3 }),
        fc.subarray([0, 1, 2, 3, 4]),
        (events, edits, extra) => {
          // A Copilot stream of those events, read back: every record kept as a template.
          const stream = write(events, true, options());
          fc.pre(stream.error === undefined);
          // Some records with data fields of their own (kept in the template) and lanes.
          const lines = stream.text
            .split('\n')
            .map((l, i) => (extra.includes(i % 5) ? l.replace('"data":{', '"data":{"x":1,') : l));
          const decoded = copilot.parse(lines.join('\n')).events.map((e) => ({ ...e }) as AgentEvent);
          // Events that write no record (a lone empty delta) leave nothing to edit.
          for (const [at, t] of decoded.length === 0 ? [] : edits) {
            const e = decoded[at % decoded.length]!;
            if (e.type === 'text.delta') e.text = t;
            else if (e.type === 'message.start') e.message = t;
          }
          expect(write(decoded, true, options())).toEqual(write(decoded, false, options()));
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  test('the default ids are UUIDs: each line is JSON, its id the next line’s parentId', () => {
    const text = copilot.stringify([
      { type: 'run.start', input: 'hi' },
      { type: 'text.delta', text: 'a"b' },
      { type: 'text.delta', text: 'c' },
      { type: 'run.end', status: 'completed' },
    ]);
    const records = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const [i, r] of records.entries()) {
      expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      if (i > 0) expect(r.parentId).toBe(records[i - 1].id);
    }
    expect(records.filter((r) => r.type === 'assistant.message_delta').map((r) => r.data)).toEqual([
      { messageId: expect.any(String), deltaContent: 'a"b' },
      { messageId: expect.any(String), deltaContent: 'c' },
    ]);
  });
});
