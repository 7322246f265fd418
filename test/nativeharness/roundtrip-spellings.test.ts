import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type Diagnostic, nativeharness } from '../../src/all';
import { FUZZ_RUNS as RUNS } from '../runs';
import {
  anyValue,
  arr,
  bool,
  dbl,
  double,
  extraFields,
  int,
  nul,
  obj,
  otherStyles,
  type Spelled,
  type Style,
  spell,
  str,
  text,
  toJs,
  withExtra,
} from '../spelling';

// nativeharness writers are JavaScript (`@nativeharness/protocol` is a Node server; its clients
// JSON.parse in the browser), and docs/protocols/nativeharness.md pins the bytes to ES2019
// `JSON.stringify` of the envelope: compact, keys in the listed order (unknown keys where the
// emitter put them, integer-like ones first as every JavaScript object lists them), strings with
// lowercase `\u00xx` and `\udxxx` escapes and `/`, U+2028 and non-ASCII raw, numbers as
// JavaScript prints them (`0`, never `0.0` or `-0`). Such input comes back byte for byte, in
// every framing. Another writer's spelling (whitespace, `\/`, `\u0041`, `1.0`, a key twice, …) is
// read and written back as JSON.stringify writes the same value: the documented normalisation.

type Fields = Array<[string, Spelled]>;

const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const nat = fc.maxSafeNat();

// Optional keys present or absent, then fields of the emitter's own anywhere among them.
function payload(base: fc.Arbitrary<Fields>, known: readonly string[]): fc.Arbitrary<Spelled> {
  return fc
    .tuple(base, fc.option(extraFields(known), { freq: 4, nil: [] }), fc.array(fc.nat(), { maxLength: 3 }))
    .map(([f, extra, at]) => obj(withExtra(f, extra, at)));
}

function present(fields: Array<[string, Spelled | undefined]>): Fields {
  return fields.filter((f): f is [string, Spelled] => f[1] !== undefined);
}

const s = text.map(str);
const strings = fc.array(text, { maxLength: 3 }).map((a) => arr(a.map(str)));
const usage = payload(
  fc.tuple(nat, nat, double).map(
    ([i, o, c]): Fields => [
      ['input_tokens', int(i)],
      ['output_tokens', int(o)],
      ['cost_usd', dbl(c)],
    ],
  ),
  ['input_tokens', 'output_tokens', 'cost_usd'],
);
const approvalOption = payload(
  fc.tuple(s, s, s).map(
    ([id, label, kind]): Fields => [
      ['option_id', id],
      ['label', label],
      ['kind', kind],
    ],
  ),
  ['option_id', 'label', 'kind'],
);
const questionOption = payload(
  fc.tuple(s, s).map(
    ([id, label]): Fields => [
      ['option_id', id],
      ['label', label],
    ],
  ),
  ['option_id', 'label'],
);
const question = payload(
  fc
    .tuple(s, s, opt(fc.array(questionOption, { maxLength: 2 }).map(arr)), opt(fc.boolean().map(bool)))
    .map(([id, t, options, multiple]) =>
      present([
        ['id', id],
        ['text', t],
        ['options', options],
        ['multiple', multiple],
      ]),
    ),
  ['id', 'text', 'options', 'multiple'],
);
const runStatus = fc.constantFrom('completed', 'failed', 'cancelled').map(str);

const payloads: Record<string, [fc.Arbitrary<Fields>, readonly string[]]> = {
  session_created: [
    fc.tuple(s, s, opt(s)).map(([actor, mode, title]) =>
      present([
        ['v', int(1)],
        ['actor', actor],
        ['mode', mode],
        ['title', title],
      ]),
    ),
    ['v', 'actor', 'mode', 'title'],
  ],
  title: [s.map((t): Fields => [['title', t]]), ['title']],
  turn_started: [s.map((t): Fields => [['input', t]]), ['input']],
  token: [
    fc.tuple(nat, s).map(
      ([hop, t]): Fields => [
        ['hop', int(hop)],
        ['text', t],
      ],
    ),
    ['hop', 'text'],
  ],
  progress: [
    fc.tuple(s, opt(s)).map(([status, detail]) =>
      present([
        ['status', status],
        ['detail', detail],
      ]),
    ),
    ['status', 'detail'],
  ],
  tool_started: [
    fc
      .tuple(
        nat,
        s,
        s,
        anyValue.filter((v) => v.t === 'obj'),
        opt(s),
      )
      .map(([hop, call, tool, args, command]) =>
        present([
          ['hop', int(hop)],
          ['call_id', call],
          ['tool', tool],
          ['args', args],
          ['command', command],
        ]),
      ),
    ['hop', 'call_id', 'tool', 'args', 'command'],
  ],
  output: [
    fc.tuple(s, fc.constantFrom('stdout', 'stderr'), s).map(
      ([call, stream, t]): Fields => [
        ['call_id', call],
        ['stream', str(stream)],
        ['text', t],
      ],
    ),
    ['call_id', 'stream', 'text'],
  ],
  tool_result: [
    fc
      .tuple(
        nat,
        s,
        s,
        fc.constantFrom('ok', 'error', 'denied', 'cancelled'),
        fc.option(fc.integer({ min: -255, max: 255 }).map(int), { nil: nul }),
        strings,
        opt(s),
        opt(s),
      )
      .map(([hop, call, tool, status, exit, files, output, error]) =>
        present([
          ['hop', int(hop)],
          ['call_id', call],
          ['tool', tool],
          ['status', str(status)],
          ['exit_code', exit],
          ['files_changed', files],
          ['output', output],
          ['error', error],
        ]),
      ),
    ['hop', 'call_id', 'tool', 'status', 'exit_code', 'files_changed', 'output', 'error'],
  ],
  approval_required: [
    fc
      .tuple(s, opt(s), s, s, strings, fc.array(approvalOption, { maxLength: 3 }))
      .map(([id, call, tool, title, effects, options]) =>
        present([
          ['approval_id', id],
          ['call_id', call],
          ['tool', tool],
          ['title', title],
          ['effects', effects],
          ['options', arr(options)],
        ]),
      ),
    ['approval_id', 'call_id', 'tool', 'title', 'effects', 'options'],
  ],
  approval_resolved: [
    fc
      .tuple(s, fc.constantFrom('allow', 'deny'), fc.constantFrom('user', 'policy', 'timeout'), opt(s))
      .map(([id, decision, by, option]) =>
        present([
          ['approval_id', id],
          ['decision', str(decision)],
          ['by', str(by)],
          ['option_id', option],
        ]),
      ),
    ['approval_id', 'decision', 'by', 'option_id'],
  ],
  ask_user: [
    fc.tuple(s, fc.array(question, { maxLength: 2 })).map(
      ([id, qs]): Fields => [
        ['question_id', id],
        ['questions', arr(qs)],
      ],
    ),
    ['question_id', 'questions'],
  ],
  child_started: [
    fc.tuple(s, opt(s), s).map(([id, name, task]) =>
      present([
        ['child_id', id],
        ['name', name],
        ['task', task],
      ]),
    ),
    ['child_id', 'name', 'task'],
  ],
  child_done: [
    fc.tuple(s, runStatus, opt(s)).map(([id, status, result]) =>
      present([
        ['child_id', id],
        ['status', status],
        ['result', result],
      ]),
    ),
    ['child_id', 'status', 'result'],
  ],
  compacted: [nat.map((n): Fields => [['tokens_freed', int(n)]]), ['tokens_freed']],
  error: [
    fc.tuple(s, fc.boolean(), opt(s)).map(([message, recoverable, code]) =>
      present([
        ['message', message],
        ['recoverable', bool(recoverable)],
        ['code', code],
      ]),
    ),
    ['message', 'recoverable', 'code'],
  ],
  cancelled: [s.map((by): Fields => [['by', by]]), ['by']],
  done: [
    fc.tuple(runStatus, s, usage).map(
      ([status, stop, u]): Fields => [
        ['status', status],
        ['stop_reason', stop],
        ['usage', u],
      ],
    ),
    ['status', 'stop_reason', 'usage'],
  ],
  hop: [
    fc.tuple(nat, s, strings, s, usage).map(
      ([hop, t, calls, stop, u]): Fields => [
        ['hop', int(hop)],
        ['text', t],
        ['tool_calls', calls],
        ['stop_reason', stop],
        ['usage', u],
      ],
    ),
    ['hop', 'text', 'tool_calls', 'stop_reason', 'usage'],
  ],
};

const ENVELOPE = ['seq', 'ts', 'type', 'workspace_id', 'session_id', 'turn_id', 'payload'];

const known = fc.constantFrom(...Object.keys(payloads)).chain((type) => {
  const [base, keys] = payloads[type]!;
  return fc.tuple(fc.constant(type), payload(base, keys));
});
const unknown = fc.tuple(
  fc.constantFrom('future_event', 'tool_progress', 'x'),
  anyValue.filter((v) => v.t === 'obj'),
);

/** One event's envelope, `seq` filled in by the stream. */
const envelope = fc
  .tuple(
    fc.oneof({ weight: 5, arbitrary: known }, { weight: 1, arbitrary: unknown }),
    fc.oneof({ weight: 4, arbitrary: nat }, { weight: 1, arbitrary: double }),
    s,
    s,
    fc.option(s, { nil: nul }),
    fc.option(extraFields(ENVELOPE), { freq: 5, nil: [] }),
    fc.array(fc.nat(), { maxLength: 3 }),
  )
  .map(
    ([[type, p], ts, workspace, session, turn, extra, at]) =>
      (seq: number): Spelled =>
        obj(
          withExtra(
            [
              ['seq', int(seq)],
              ['ts', dbl(ts)],
              ['type', str(type)],
              ['workspace_id', workspace],
              ['session_id', session],
              ['turn_id', turn],
              ['payload', p],
            ],
            extra,
            at,
          ),
        ),
  );

/** A stream of envelopes with strictly increasing `seq` (holes allowed, as a log has them). */
const stream = fc
  .tuple(
    fc.array(envelope, { minLength: 1, maxLength: 8 }),
    fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 8, maxLength: 8 }),
    fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant(2 ** 53 - 40)),
  )
  .map(([make, steps, start]) => {
    let seq = start;
    return make.map((m, i) => {
      seq += steps[i]!;
      return m(seq);
    });
  });

// What a JavaScript emitter writes for the value (it cannot keep integer-like keys in place).
const js = (v: Spelled): string => JSON.stringify(toJs(v));

function frame(lines: string[], framing: 'sse' | 'json' | 'jsonl'): string {
  switch (framing) {
    case 'jsonl':
      return lines.map((l) => `${l}\n`).join('');
    case 'json':
      return `[\n${lines.join(',\n')}\n]\n`;
    case 'sse':
      return lines
        .map((l) => {
          const { seq, type } = JSON.parse(l) as { seq: number; type: string };
          return `id: ${seq}\nevent: ${type}\ndata: ${l}\n\n`;
        })
        .join('');
  }
}

function roundTrip(
  input: string,
  framing: 'sse' | 'json' | 'jsonl',
): { out: string; decoded: Diagnostic[]; written: Diagnostic[] } {
  const { events, diagnostics } = nativeharness.parse(input, { framing });
  const written: Diagnostic[] = [];
  const out = nativeharness.stringify(events, { framing, onDiagnostic: (d) => written.push(d) });
  // Reported by design, and nothing else may be: unknown event types (info), and an integer
  // literal past 2^53 where no schema looks (docs/limits.md: JavaScript prints a double such as
  // 1.2345678901234568e20 as 123456789012345680000, which an int64 writer would have meant as
  // another value; the line still comes back as it was).
  const reported = diagnostics.filter(
    (d) => d.code !== 'unknown_record' && !(d.code === 'invalid_record' && d.message.includes('beyond 2^53')),
  );
  return { out, decoded: reported, written };
}

const framings = ['jsonl', 'sse', 'json'] as const;

describe('nativeharness: what a conforming (JSON.stringify) writer writes comes back byte for byte', () => {
  for (const framing of framings) {
    test(`${framing}: every event type, unknown types and keys, escapes, lone surrogates, numbers`, () => {
      let intKeys = 0;
      fc.assert(
        fc.property(stream, (envelopes) => {
          const lines = envelopes.map(js);
          if (lines.some((l) => /[{,]"\d+":/.test(l))) intKeys++;
          const input = frame(lines, framing);
          const { out, decoded, written } = roundTrip(input, framing);
          expect(decoded).toEqual([]);
          expect(written).toEqual([]);
          expect(out).toBe(input);
        }),
        { numRuns: RUNS * 3 },
      );
      expect(intKeys).toBeGreaterThan(RUNS / 4);
    });
  }
});

describe("nativeharness: other writers' spellings are written back as JSON.stringify writes the same value", () => {
  const styles: Array<[string, Style]> = [
    ...otherStyles,
    ['Dart doubles (1.0, -0.0)', { doubles: 'dart' }],
    ['integer-like keys where the writer put them', {}],
  ];
  for (const [name, style] of styles) {
    test(name, () => {
      fc.assert(
        fc.property(stream, fc.constantFrom(...framings), (envelopes, framing) => {
          const respelled = frame(
            envelopes.map((e) => spell(e, style)),
            framing,
          );
          const { out, decoded, written } = roundTrip(respelled, framing);
          expect(decoded).toEqual([]);
          expect(written).toEqual([]);
          expect(out).toBe(frame(envelopes.map(js), framing));
        }),
        { numRuns: RUNS },
      );
    });
  }
});
