import { describe, expect, test } from 'vitest';
import { codecs } from '../src/formats';
import { type AgentEvent, AgentwireError, type Codec, type Usage } from '../src/index';

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
