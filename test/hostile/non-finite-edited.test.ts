import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { EncodeOptions } from '../../src/codec';
import type { Format } from '../../src/diagnostics';
import { codecFor } from '../../src/formats/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, type RefusedWrites, writeRefusing } from '../refused-writes';

// Round thirty-two: an event edited on a line that holds a number past a double's range
// (`1e400`, which `JSON.parse` reads as Infinity), written back to its own format by a writer
// that rebuilds the line from its kept record (AG-UI, OpenCode), got the `null` JSON.stringify
// makes of that Infinity where the line spelled the number, with nothing said (unedited, the
// line comes back as it came: test/hostile/non-finite-kept.test.ts). Now refused, as every
// writer refuses a number JSON cannot hold (the Claude and Copilot writers refused it already),
// before the writer writes or changes anything for it; an edit that holds NaN likewise.
// The AG-UI writer still writes such a line with `null` (docs/limits.md): refusing it first took
// a copy of the writer's state per line, quadratic over a stream of such lines (round
// thirty-two, docs/performance.md).

const FIXTURES = join(__dirname, '../../fixtures');

// format, fixture, what holds the number, the text before which `"zz":1e400,` is put (its first
// match), the path of the refusal.
const PLACES: Array<[Format, string, string, RegExp, string]> = [
  ['opencode', 'tool-then-text.jsonl', 'a field of its own', /(?<=^\{)"type":"tool_use"/m, 'record\\.zz'],
  [
    'opencode',
    'tool-then-text.jsonl',
    "a call's input",
    /(?<="input":\{)/,
    'record\\.part\\.state\\.input\\.zz',
  ],
];

// The events' writes, a refused one noted; the stream's end left out (see below).
function writer(format: Format): (events: readonly AgentEvent[]) => RefusedWrites {
  return (events) => {
    const encoder = codecFor(format)!.createEncoder({ onDiagnostic() {}, clock: () => 0 } as EncodeOptions);
    return writeRefusing({ write: (e) => encoder.write(e), end: () => '' }, events);
  };
}

// The event that writes the line holding `zz`: the first not derived whose kept line holds it
// and that writes one (a call's start waits for its end, which writes its input).
function onLine(events: readonly AgentEvent[], text: string): number {
  return events.findIndex(
    (e) =>
      e.type !== 'tool.start' &&
      e.provenance?.synthetic !== true &&
      String((e.provenance?.hints as { raw?: unknown } | undefined)?.raw).includes(text),
  );
}

describe("an edited event on a line with a number past a double's range is refused", () => {
  test.each(PLACES)('%s: %s, in %s', (format, file, _what, before, path) => {
    const source = readFileSync(join(FIXTURES, format, file), 'utf8');
    const m = before.exec(source)!;
    for (const n of ['1e400', '-1e400']) {
      const text = `${source.slice(0, m.index)}"zz":${n},${source.slice(m.index)}`;
      // (The run's end left out too: OpenCode writes a call that never ended there, from its
      // start alone, which would put the kept line's number into a record this test is not about.)
      const events = codecFor(format)!
        .parse(text)
        .events.filter((e) => e.type !== 'run.end');
      // The call's end writes its start's input: the end is the event edited.
      const at = onLine(events, path.includes('input') && format === 'opencode' ? '"callID"' : '"zz"');
      expect(at).toBeGreaterThanOrEqual(0);
      const edited = { ...events[at]!, ts: (events[at]!.ts ?? 0) + 1 } as AgentEvent;
      const stream = events.map((e, i) => (i === at ? edited : e));
      const sign = n.startsWith('-') ? '-' : '';
      expectRefusedAlone(
        writer(format),
        stream,
        edited,
        new RegExp(`^${path}: ${sign}Infinity is not a finite number; JSON cannot hold it$`),
      );
    }
  });

  test.each([['opencode', 'tool-then-text.jsonl']] as const)(
    '%s: an edit that holds NaN (%s), on any line',
    (format, file) => {
      const events = codecFor(format)!.parse(readFileSync(join(FIXTURES, format, file), 'utf8')).events;
      for (const [i, e] of events.entries()) {
        if (e.provenance?.synthetic === true || e.ts === undefined || e.type === 'tool.start') continue;
        const edited = { ...e, ts: Number.NaN } as AgentEvent;
        const stream = events.map((x, j) => (j === i ? edited : x));
        const dirty = writer(format)(stream);
        // Written, the time is not `null`; refused, nothing else changed.
        if (dirty.refusals.length === 0) expect(dirty.text).not.toContain('null');
        else expectRefusedAlone(writer(format), stream, edited, /NaN is not a finite number/);
      }
    },
  );
});
