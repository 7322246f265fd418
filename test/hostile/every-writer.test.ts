import { describe, expect, test } from 'vitest';
import type { Codec } from '../../src/codec';
import { codecs } from '../../src/formats/index';
import type { AgentEvent } from '../../src/model';
import { HOSTILE } from './helpers';

// Every format's writer handed hostile text (HOSTILE in helpers.ts, as writers.test.ts): the text of the
// text deltas, a tool's command and its result come back exactly through the same format's
// decoder, and the output holds no lone surrogate and no raw control character but the line
// ends its framing writes. writers.test.ts goes field by field for HEP, highbar and
// nativeharness; this holds the same promise for every codec, on the fields all of them carry.

const events = (s: string): AgentEvent[] => [
  { type: 'session.start', session: 'sess', protocol: 'v1' },
  { type: 'run.start', round: 1 },
  { type: 'message.start', role: 'assistant', round: 1, message: 'm1' },
  { type: 'text.delta', text: s, round: 1, message: 'm1' },
  { type: 'tool.start', call: 'c1', name: 'bash', args: { command: s }, round: 1 },
  { type: 'tool.end', call: 'c1', name: 'bash', ok: true, text: s, round: 1 },
  { type: 'round.end', message: s, round: 1 },
  { type: 'run.end', status: 'completed', answer: s },
];

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Tab, LF and CR may be raw only as framing: none of the formats writes them raw inside a value.
const RAW_CONTROL = /[\0-\x09\x0b\x0c\x0e-\x1f]/;

// highbar has no record for streamed text: its text deltas are a loss, reported.
const WITH_TEXT = Object.values(codecs).filter((c): c is Codec => c !== undefined && c.format !== 'highbar');

describe.each(WITH_TEXT.map((c) => [c.format, c] as const))('%s writer, hostile text', (_format, codec) => {
  test.each(Object.entries(HOSTILE))('%s comes back exactly', (_name, s) => {
    // HEP writes a tool's arguments as a summary unless asked for them whole.
    const options = codec.format === 'hep' ? { args: 'full' } : {};
    const text = codec.stringify(events(s), { ...options, onDiagnostic: () => {} });
    expect(LONE_SURROGATE.test(text)).toBe(false);
    expect(RAW_CONTROL.test(text)).toBe(false);
    const back = codec.parse(text);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const deltas = back.events.flatMap((e) => (e.type === 'text.delta' ? [e.text] : []));
    expect(deltas.join('')).toBe(s);
    const starts = back.events.flatMap((e) => (e.type === 'tool.start' ? [e] : []));
    expect(starts.map((e) => e.args)).toEqual([{ command: s }]);
    const ends = back.events.flatMap((e) => (e.type === 'tool.end' ? [e.text] : []));
    expect(ends).toEqual([s]);
  });
});
