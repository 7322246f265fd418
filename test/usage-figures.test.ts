import { describe, expect, test } from 'vitest';
import { type AgentEvent, AgentwireError, type Codec, type Usage } from '../src/all';
import { codecs } from '../src/formats';

// A usage figure JSON cannot hold (NaN, ±Infinity) never reaches the output: no writer spells it
// into a line that is then no JSON, nor lets JSON.stringify turn it into `null` (a count that
// reads back as absent, or as zero). It is refused as every unwritable value is: an
// AgentwireError `unencodable` (convert reports it at its event and goes on), or a `loss`.

const BAD: Array<[string, Usage]> = [
  ['NaN input', { input: Number.NaN, output: 3 }],
  ['infinite output', { input: 2, output: Number.POSITIVE_INFINITY }],
  ['infinite cost', { input: 2, output: 3, costUsd: Number.POSITIVE_INFINITY }],
  ['NaN cache read', { input: 2, output: 3, cacheRead: Number.NaN }],
];

function events(where: 'round' | 'run' | 'usage', usage: Usage): AgentEvent[] {
  return [
    { type: 'session.start', session: 's' },
    { type: 'run.start', input: 'q' },
    { type: 'round.start' },
    { type: 'message.start', role: 'assistant', message: 'm' },
    { type: 'text.delta', message: 'm', text: 'hi' },
    { type: 'message.end', message: 'm' },
    where === 'usage'
      ? { type: 'usage', usage }
      : where === 'round'
        ? { type: 'round.end', message: 'hi', usage }
        : { type: 'round.end', message: 'hi' },
    where === 'run'
      ? { type: 'run.end', status: 'completed', usage }
      : { type: 'run.end', status: 'completed' },
  ];
}

const FIGURE_NULL = /"[A-Za-z_]*(?:[Tt]okens|input|output|read|write|reasoning|cost[A-Za-z_]*|Usd)":null/;

describe.each(Object.entries(codecs))('%s writer', (_format, codec) => {
  test.each(
    BAD.flatMap(([name, usage]) =>
      (['round', 'run', 'usage'] as const).map((w) => [`${name} on ${w}`, w, usage] as const),
    ),
  )('%s: refused, never written as null or as no JSON', (_name, where, usage) => {
    const encoder = (codec as Codec).createEncoder({ onDiagnostic: () => {} });
    let out = '';
    try {
      for (const e of events(where, usage)) out += encoder.write(e);
      out += encoder.end();
    } catch (error) {
      expect(error).toBeInstanceOf(AgentwireError);
      expect((error as AgentwireError).code).toBe('unencodable');
    }
    for (const line of out.split(/\r?\n/)) {
      const text = line.startsWith('data: ') ? line.slice(6) : line;
      if (!text.startsWith('{')) continue;
      expect(() => JSON.parse(text)).not.toThrow();
      expect(text).not.toMatch(FIGURE_NULL);
    }
  });
});

// The same for times: an event's `ts` JSON cannot hold is refused or left out, never spelled
// as "NaN" or "Infinity" (Cursor writes its tool times as strings, where `String(NaN)` is valid
// JSON and no time).
describe.each(Object.entries(codecs))('%s writer, times', (_format, codec) => {
  test.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
  ])('ts %s on every event: refused or left out', (_name, ts) => {
    const encoder = (codec as Codec).createEncoder({ onDiagnostic: () => {} });
    let out = '';
    try {
      for (const e of events('round', { input: 1, output: 1 }))
        out += encoder.write({ ...e, ts } as AgentEvent);
      for (const e of [
        { type: 'tool.start', call: 'c', name: 'n', args: {}, ts },
        { type: 'tool.end', call: 'c', name: 'n', ok: true, text: 'r', ts },
      ] as AgentEvent[])
        out += encoder.write(e);
      out += encoder.end();
    } catch (error) {
      expect(error).toBeInstanceOf(AgentwireError);
      expect((error as AgentwireError).code).toBe('unencodable');
    }
    expect(out).not.toMatch(/NaN|Infinity|Invalid Date/);
    for (const line of out.split(/\r?\n/)) {
      const text = line.startsWith('data: ') ? line.slice(6) : line;
      if (text.startsWith('{')) expect(() => JSON.parse(text)).not.toThrow();
    }
  });
});

// And every other number of the model an event may carry (a round, a seq, a pid, durations,
// times, an exit code, byte and token counts): refused or left out, never written as `"NaN"`,
// `round NaN` or `null`. Copilot and AG-UI spelled a NaN round into a turn id and a step name;
// the AI SDK writer let JSON.stringify write a NaN duration, time or exit code as null.
const T = 1767225600000;
const EVERY_NUMBER = [
  { type: 'session.start', session: 's', ts: T, pid: 12 },
  { type: 'run.start', input: 'go', ts: T },
  { type: 'round.start', ts: T, round: 1 },
  { type: 'text.delta', text: 'hi', ts: T, round: 1 },
  { type: 'tool.start', call: 'c', name: 'Bash', args: { command: 'ls' }, ts: T, startedAt: T, round: 1 },
  { type: 'tool.progress', call: 'c', elapsedMs: 5, outputBytes: 3, ts: T },
  {
    type: 'tool.end',
    call: 'c',
    name: 'Bash',
    ok: true,
    result: 'x',
    exitCode: 0,
    startedAt: T,
    endedAt: T + 1,
    ts: T,
    round: 1,
  },
  { type: 'compaction.end', tokensBefore: 10, tokensAfter: 5, tokensFreed: 5, ts: T },
  { type: 'round.end', message: 'hi', ts: T, round: 1 },
  { type: 'run.end', status: 'completed', durationMs: 10, ts: T, seq: 9 },
] as unknown as AgentEvent[];
const NUMBER_FIELDS = [
  'round',
  'seq',
  'pid',
  'durationMs',
  'startedAt',
  'endedAt',
  'exitCode',
  'elapsedMs',
  'outputBytes',
  'tokensBefore',
  'tokensAfter',
  'tokensFreed',
];

describe.each(Object.entries(codecs))('%s writer, every other number', (_format, codec) => {
  test.each(NUMBER_FIELDS.flatMap((f) => [[f, Number.NaN] as const, [f, Number.POSITIVE_INFINITY] as const]))(
    '%s = %s: refused or left out',
    (field, bad) => {
      const encoder = (codec as Codec).createEncoder({ onDiagnostic: () => {} });
      let out = '';
      try {
        for (const e of EVERY_NUMBER)
          out += encoder.write((field in e ? { ...e, [field]: bad } : e) as AgentEvent);
        out += encoder.end();
      } catch (error) {
        expect(error).toBeInstanceOf(AgentwireError);
        expect((error as AgentwireError).code).toBe('unencodable');
        return;
      }
      expect(out).not.toMatch(/NaN|Infinity/);
      expect(out).not.toMatch(new RegExp(`"${field}":null`));
      for (const line of out.split(/\r?\n/)) {
        const text = line.startsWith('data: ') ? line.slice(6) : line;
        if (text.startsWith('{')) expect(() => JSON.parse(text)).not.toThrow();
      }
    },
  );
});
