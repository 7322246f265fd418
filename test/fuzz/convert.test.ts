import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { Codec } from '../../src/codec';
import { convert } from '../../src/convert';
import { detectFormat } from '../../src/detect';
import type { Diagnostic } from '../../src/diagnostics';
import { isAgentwireError } from '../../src/diagnostics';
import { codecs } from '../../src/formats/index';
import type { AgentEvent } from '../../src/model';
import { FUZZ_RUNS } from '../runs';
import { viewAndTrace } from './views';

// Damaged input through every conversion: any fixture of any format, with bytes flipped,
// inserted or deleted and lines repeated or dropped (a replayed envelope, a lost line), is
// checked, decoded and converted to every format. The decoders hand the writers event
// sequences no clean stream has (a tool's end without its start, a seq that does not increase,
// a run that never started); no check and no conversion may throw, and the output of each
// conversion reads back in its format without throwing. Whatever a writer refuses is a
// diagnostic placed at its input line.

type Checked = Codec & { check(input: Uint8Array): Diagnostic[] };
// Every codec has check() (the registry's type leaves it out).
const FORMATS = Object.values(codecs).filter((c) => c !== undefined) as Checked[];
const fixtures = FORMATS.flatMap((codec) => {
  const dir = `fixtures/${codec.format}`;
  return readdirSync(dir)
    .filter((f) => /\.(jsonl|sse|json)$/.test(f) && !f.endsWith('.golden.json'))
    .sort()
    .map((f) => ({ name: `${dir}/${f}`, codec, bytes: Array.from(readFileSync(`${dir}/${f}`)) }));
});

const edit = fc.tuple(
  fc.nat(),
  fc.nat({ max: 255 }),
  fc.constantFrom('flip', 'insert', 'delete', 'repeat line', 'drop line'),
);

function damage(original: number[], edits: Array<[number, number, string]>): Uint8Array {
  let b = [...original];
  for (const [pos, byte, op] of edits) {
    const i = pos % (b.length + 1);
    if (op === 'flip') b[Math.min(i, b.length - 1)] = byte;
    else if (op === 'insert') b.splice(i, 0, byte);
    else if (op === 'delete') b.splice(i, 1);
    else {
      // latin1 maps bytes to code units one to one, so any bytes survive the split and join.
      const lines = Buffer.from(b).toString('latin1').split('\n');
      const k = pos % lines.length;
      if (op === 'repeat line') lines.splice(k, 0, lines[k]!);
      else lines.splice(k, 1);
      b = Array.from(Buffer.from(lines.join('\n'), 'latin1'));
    }
  }
  return Uint8Array.from(b);
}

test('damaged fixtures: check() and a conversion to every format never throw', () => {
  fc.assert(
    fc.property(fc.constantFrom(...fixtures), fc.array(edit, { maxLength: 5 }), (fixture, edits) => {
      const bytes = damage(fixture.bytes, edits);
      fixture.codec.check(bytes);
      for (const target of FORMATS) {
        const diagnostics: Diagnostic[] = [];
        const r = convert(bytes, {
          from: fixture.codec.format,
          to: target.format,
          onDiagnostic: (d) => diagnostics.push(d),
          clock: () => 1_767_225_600_000,
          idSource: () => 'id',
        });
        for (const d of diagnostics) {
          if (d.code !== 'loss') expect(d.line, d.message).toBeGreaterThanOrEqual(1);
        }
        target.parse(r.output);
      }
    }),
    { numRuns: Math.max(20, Math.floor(FUZZ_RUNS / 2)) },
  );
});

// Every event every decoder makes from the fixtures, with its provenance, without it, or without
// its seq and ts too: writers are handed any of them in any order and any mix of formats (what a
// supervisor's own code may pass on). No writer throws but by its documented rule (nativeharness
// refuses a seq that does not increase), and each output reads back in its format.
const POOL: AgentEvent[] = fixtures.flatMap((f) => f.codec.parse(Uint8Array.from(f.bytes)).events);

function variant(event: AgentEvent, how: number): AgentEvent {
  if (how === 0) return event;
  const { provenance: _p, ...rest } = event;
  if (how === 1) return rest as AgentEvent;
  const { seq: _s, ts: _t, ...bare } = rest;
  return bare as AgentEvent;
}

test('events of every decoder in any order and mix: every writer writes them, its output reads back', () => {
  const pick = fc.tuple(fc.nat({ max: POOL.length - 1 }), fc.nat({ max: 2 }));
  fc.assert(
    fc.property(fc.array(pick, { maxLength: 40 }), (picks) => {
      const events = picks.map(([i, how]) => variant(POOL[i]!, how));
      for (const target of FORMATS) {
        let output: string;
        try {
          output = target.stringify(events, { onDiagnostic: () => {} });
        } catch (error) {
          expect(isAgentwireError(error) && target.format === 'nativeharness', String(error)).toBe(true);
          expect((error as Error).message).toMatch(/seq must increase strictly/);
          continue;
        }
        target.parse(output);
      }
    }),
    { numRuns: Math.max(20, Math.floor(FUZZ_RUNS / 2)) },
  );
});

// The other consumers of events and bytes: the terminal timeline (colour and not), the OpenTelemetry
// tracer (with content captured) and format detection take the same mixes and damaged bytes
// without throwing.
test('the timeline, the tracer and detection take any mix of events and damaged bytes', () => {
  const pick = fc.tuple(fc.nat({ max: POOL.length - 1 }), fc.nat({ max: 2 }));
  fc.assert(
    fc.property(
      fc.array(pick, { maxLength: 60 }),
      fc.constantFrom(...fixtures),
      fc.array(edit, { maxLength: 4 }),
      (picks, fixture, edits) => {
        const events = picks.map(([i, how]) => variant(POOL[i]!, how));
        viewAndTrace(events);
        const bytes = damage(fixture.bytes, edits);
        detectFormat(bytes);
        detectFormat(Buffer.from(bytes).toString('latin1'));
      },
    ),
    { numRuns: Math.max(20, Math.floor(FUZZ_RUNS / 2)) },
  );
});
