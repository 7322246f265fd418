import { describe, expect, test } from 'vitest';
import type { Codec } from '../../src/codec';
import { AgentwireError, type Diagnostic } from '../../src/diagnostics';
import { hep } from '../../src/formats/hep/index';
import { highbar } from '../../src/formats/highbar/index';
import { nativeharness } from '../../src/formats/nativeharness/index';
import type { AgentEvent, AgentEventOf } from '../../src/model';
import { bugTest, HOSTILE } from './helpers';

// Writers handed hostile values: every string field with control characters, lone surrogates,
// U+2028/U+2029, markup and SSE field syntax must come back exactly through the decoder (the
// library never escapes or sanitises text); values JSON cannot hold are refused with
// AgentwireError `unencodable`, never a TypeError, never written altered.

function wellFormedOutput(text: string): void {
  // Lone surrogates are escaped, never raw (String.prototype.isWellFormed is ES2024; the lib is ES2022).
  expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text)).toBe(false);
  // The only raw control characters are the terminators the framing writes.
  expect(/[\0-\x09\x0b-\x1f]/.test(text)).toBe(false); // (DEL may stay raw: JSON allows it)
}

const hepEvents = (s: string): AgentEvent[] => [
  { type: 'session.start', session: s, producer: s, protocol: 'v1' },
  { type: 'run.start', round: 1 },
  { type: 'text.delta', text: s, round: 1 },
  { type: 'tool.start', call: s, name: s, argsSummary: `p=${s}`, round: 1 },
  { type: 'tool.output', call: s, text: s, round: 1 },
  { type: 'tool.end', call: s, name: s, ok: true, text: s, round: 1 },
  { type: 'round.end', message: s, stopReason: s, usage: { input: 1, output: 2, costUsd: 0.5 }, round: 1 },
  { type: 'error', message: s, fatal: false, round: 2 },
];

function hepStrings(events: AgentEvent[]): unknown[] {
  return events.flatMap((e) => {
    switch (e.type) {
      case 'session.start':
        return [e.session, e.producer];
      case 'text.delta':
      case 'tool.output':
        return [e.text];
      case 'tool.start':
        return [e.call, e.name, e.argsSummary];
      case 'tool.end':
        return [e.call, e.name, e.text];
      case 'round.end':
        return [e.message, e.stopReason];
      case 'error':
        return [e.message];
      default:
        return [];
    }
  });
}

const highbarEvents = (s: string): AgentEvent[] => [
  { type: 'session.start', producer: s, pid: 1, tools: [s], ts: 1767225600000 },
  {
    type: 'tool.start',
    call: 'c1',
    name: s,
    args: { [s]: s, nested: [s, { k: s }] },
    ts: 1767225600100,
    context: { test: s },
  },
  {
    type: 'tool.end',
    call: 'c1',
    name: s,
    ok: false,
    result: s,
    error: s,
    ts: 1767225600200,
    context: { test: s },
  },
];

function highbarStrings(events: AgentEvent[]): unknown[] {
  return events.flatMap((e) => {
    switch (e.type) {
      case 'session.start':
        return [e.producer, e.tools];
      case 'tool.start':
        return [e.name, e.args, e.context];
      case 'tool.end':
        return [e.name, e.result, e.error, e.context];
      default:
        return [];
    }
  });
}

const envelope = (seq: number) => ({ seq, ts: 1767225600137, workspace: 'w', session: 's', run: 't' });
const nhEvents = (s: string): AgentEvent[] => [
  { type: 'text.delta', text: s, round: 1, ...envelope(1) },
  { type: 'tool.start', call: s, name: s, args: { [s]: s }, round: 1, ...envelope(2) },
  { type: 'status', status: s, ...envelope(3) },
  { type: 'error', message: s, fatal: false, ...envelope(4) },
];

function nhStrings(events: AgentEvent[]): unknown[] {
  return events.flatMap((e) => {
    switch (e.type) {
      case 'text.delta':
        return [e.text];
      case 'tool.start':
        return [e.call, e.name, e.args];
      case 'status':
        return [e.status];
      case 'error':
        return [e.message];
      default:
        return [];
    }
  });
}

interface WriterCase {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: the codecs differ only in option types
  codec: Codec<any, any>;
  options: Record<string, unknown>;
  events: (s: string) => AgentEvent[];
  strings: (events: AgentEvent[]) => unknown[];
}

const writers: WriterCase[] = [
  { name: 'HEP', codec: hep, options: {}, events: hepEvents, strings: hepStrings },
  {
    name: 'highbar',
    codec: highbar,
    options: { now: () => 0 },
    events: highbarEvents,
    strings: highbarStrings,
  },
  {
    name: 'nativeharness SSE',
    codec: nativeharness,
    options: { framing: 'sse' },
    events: nhEvents,
    strings: nhStrings,
  },
  {
    name: 'nativeharness JSON Lines',
    codec: nativeharness,
    options: { framing: 'jsonl' },
    events: nhEvents,
    strings: nhStrings,
  },
  {
    name: 'nativeharness JSON array',
    codec: nativeharness,
    options: { framing: 'json' },
    events: nhEvents,
    strings: nhStrings,
  },
];

describe('hostile input: writers, every string field', () => {
  for (const w of writers) {
    for (const [label, s] of Object.entries(HOSTILE)) {
      test(`${w.name}: ${label} in every string field is written escaped-as-JSON and read back exactly`, () => {
        const events = w.events(s);
        const losses: Diagnostic[] = [];
        const text = w.codec.stringify(events, {
          ...w.options,
          onDiagnostic: (d: Diagnostic) => losses.push(d),
        });
        wellFormedOutput(text);
        if (s.includes('</script>')) expect(text).toContain('</script>'); // text, never markup-escaped
        const back = w.codec.parse(text);
        expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(w.strings(back.events)).toEqual(w.strings(events));
        expect(losses.filter((d) => d.code !== 'loss')).toEqual([]);
      });
    }
  }
});

const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;

interface RefuseCase {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  codec: Codec<any, any>;
  events: AgentEvent[];
  /** The field the error message must name. */
  names: RegExp;
  fails?: boolean;
}

const tool = (args: Record<string, unknown>, extra: Partial<AgentEventOf<'tool.end'>> = {}): AgentEvent[] => [
  { type: 'tool.start', call: 'c', name: 'n', args, round: 1, ...envelope(1) },
  { type: 'tool.end', call: 'c', name: 'n', ok: true, round: 1, ...envelope(2), ...extra },
];

const refuse: RefuseCase[] = [
  {
    name: 'HEP: usage.costUsd NaN',
    codec: hep,
    events: [{ type: 'round.end', message: 'm', usage: { costUsd: Number.NaN }, round: 1 }],
    names: /usage\.costUsd: NaN/,
  },
  {
    name: 'HEP: usage.input Infinity',
    codec: hep,
    events: [{ type: 'round.end', message: 'm', usage: { input: Number.POSITIVE_INFINITY }, round: 1 }],
    names: /usage\.input: Infinity/,
  },
  {
    name: 'HEP: round NaN',
    codec: hep,
    events: [{ type: 'text.delta', text: 'x', round: Number.NaN }],
    names: /round: NaN/,
  },
  {
    name: 'HEP: round 2^53 + 2 (would be rounded)',
    codec: hep,
    events: [{ type: 'text.delta', text: 'x', round: 2 ** 53 + 2 }],
    names: /round: 9007199254740994/,
  },
  {
    name: 'HEP: tool.end result with a BigInt',
    codec: hep,
    events: tool({}, { result: { n: 1n } }),
    names: /tool\.end\.result\.n: a BigInt/,
  },
  {
    name: 'HEP: an unknown record with a BigInt',
    codec: hep,
    events: [{ type: 'unknown', recordType: 'x', record: { type: 'x', n: 1n } }],
    names: /unknown\.record\.n: a BigInt/,
  },
  {
    name: 'HEP: a provenance extra field holding NaN',
    codec: hep,
    events: [
      {
        type: 'text.delta',
        text: 'x',
        round: 1,
        provenance: { format: 'hep', line: 1, offset: 0, extra: { n: Number.NaN } },
      },
    ],
    names: /n: NaN/,
  },
  {
    name: 'HEP: a non-string text',
    codec: hep,
    events: [{ type: 'text.delta', text: 5 as unknown as string, round: 1 }],
    names: /text\.delta\.text: a number, not a string$/,
  },
  {
    name: 'highbar: args with a BigInt',
    codec: highbar,
    events: tool({ n: 1n }),
    names: /args\.n: a BigInt/,
  },
  {
    name: 'highbar: args with NaN',
    codec: highbar,
    events: tool({ n: Number.NaN }),
    names: /args\.n: NaN/,
  },
  {
    name: 'highbar: args with a cycle',
    codec: highbar,
    events: tool(cyclic),
    names: /args\.self: .*cycle/,
  },
  {
    name: 'highbar: result with Infinity',
    codec: highbar,
    events: tool({}, { result: { n: Number.NEGATIVE_INFINITY } }),
    names: /result\.n: -Infinity/,
  },
  {
    name: 'highbar: context with a BigInt',
    codec: highbar,
    events: tool({}, { context: { t: 1n } }),
    names: /context\.t: a BigInt/,
  },
  {
    name: 'nativeharness: ts NaN',
    codec: nativeharness,
    events: [{ type: 'text.delta', text: 'x', round: 1, ...envelope(1), ts: Number.NaN }],
    names: /ts: NaN/,
  },
  {
    name: 'nativeharness: seq 2^53 + 2',
    codec: nativeharness,
    events: [{ type: 'text.delta', text: 'x', round: 1, ...envelope(2 ** 53 + 2) }],
    names: /seq: 9007199254740994/,
  },
  {
    name: 'nativeharness: args with a BigInt',
    codec: nativeharness,
    events: tool({ n: 1n }),
    names: /args\.n: a BigInt/,
  },
  {
    name: 'nativeharness: args with a cycle',
    codec: nativeharness,
    events: tool(cyclic),
    names: /args\.self: .*cycle/,
  },
  {
    name: 'nativeharness: usage.costUsd NaN',
    codec: nativeharness,
    events: [{ type: 'round.end', message: 'm', usage: { costUsd: Number.NaN }, round: 1, ...envelope(1) }],
    names: /usage\.costUsd: NaN/,
  },
];

describe('hostile input: writers refuse what JSON cannot hold', () => {
  for (const c of refuse) {
    const run = c.fails === true ? bugTest : test;
    run(`${c.name}: AgentwireError (unencodable) naming the field`, () => {
      let thrown: unknown;
      try {
        c.codec.stringify(c.events, { now: () => 0, clock: () => 0, idSource: () => 'id' });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AgentwireError);
      expect((thrown as AgentwireError).code).toBe('unencodable');
      expect((thrown as AgentwireError).message).toMatch(c.names);
    });
  }
});

describe('hostile input: HEP args JSON cannot hold', () => {
  // The reference writes such a value as [unserializable] (HEP v1 facts, "Bounds"): agentwire
  // does the same, and reports a loss naming the field, never silently.
  test.each([
    ['a BigInt', { n: 1n, ok: true }],
    ['NaN', { n: Number.NaN, ok: true }],
  ])('%s in args: [unserializable] in the summary, and a loss naming it', (_name, args) => {
    const losses: Diagnostic[] = [];
    const out = hep.stringify([{ type: 'tool.start', call: 'c', name: 't', args, round: 1 }], {
      session: 's',
      onDiagnostic: (d) => losses.push(d),
    });
    expect(out).toContain('"args_summary":"n=[unserializable], ok=true"');
    expect(losses.map((d) => [d.code, d.field])).toEqual([['loss', 'tool.start.args']]);
    expect(losses[0]!.message).toMatch(/args\.n/);
  });
});
