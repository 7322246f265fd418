import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { convert } from '../src/convert';
import { type Diagnostic, FORMATS, type Format } from '../src/diagnostics';
import { codecFor } from '../src/formats/index';
import { CAPTURES } from './agent-suite';

// Every real capture (../shared/captures, read at run time) and every fixture of the project
// (fixtures/<format>/, bad input included) converted to every other format: the
// conversion never throws, and the target format's own reader takes the output without an error
// diagnostic. What the target cannot hold is reported as `loss`, never written as a malformed
// line. (A capture converted to its own format is its own round trip, held by the agent suites;
// the Gemini CLI snapshots keep their placeholder lines, which are not JSON, as written.)

const TARGETS: readonly Format[] = FORMATS;

const AGENT_FORMAT: Record<string, Format> = {
  'claude-code': 'claude',
  codex: 'codex',
  'gemini-cli': 'gemini',
  opencode: 'opencode',
  cursor: 'cursor',
};

const captures = Object.entries(AGENT_FORMAT).flatMap(([dir, from]) =>
  readdirSync(`${CAPTURES}${dir}`)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => {
      // The capture authors' `#` comment lines (three Codex captures) are not wire output.
      const text = readFileSync(`${CAPTURES}${dir}/${f}`, 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith('#'))
        .join('\n');
      return { name: `${dir}/${f}`, from, text };
    }),
);

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const fixtures = TARGETS.flatMap((from) =>
  readdirSync(`${FIXTURES}${from}`)
    .filter((f) => /\.(jsonl|sse)$/.test(f))
    .sort()
    .map((f) => ({
      name: `fixtures/${from}/${f}`,
      from,
      text: readFileSync(`${FIXTURES}${from}/${f}`, 'utf8'),
    })),
);

describe('every capture and fixture converts to every format; the target reads the output back', () => {
  test('there are captures of every agent and fixtures of every format', () => {
    expect(new Set(captures.map((i) => i.from))).toEqual(new Set(Object.values(AGENT_FORMAT)));
    expect(new Set(fixtures.map((i) => i.from))).toEqual(new Set(TARGETS));
  });

  describe.each([...captures, ...fixtures])('$name', ({ from, text }) => {
    test.each(TARGETS.filter((to) => to !== from))('to %s', (to) => {
      const { output, diagnostics } = convert(text, { from, to });
      // The writer adds no error of its own (an `unencodable` value): the conversion's errors
      // are the input's.
      const errors = (ds: Diagnostic[]) => ds.filter((d) => d.severity === 'error').map((d) => d.message);
      expect(errors(diagnostics)).toEqual(errors(codecFor(from)!.parse(text).diagnostics));
      const back = codecFor(to)!.parse(output);
      expect(errors(back.diagnostics)).toEqual([]);
      // Something of a clean run reaches every format (each has at least a run's or a message's
      // line), but OpenCode has no record for a run without a step (a session, a prompt, a notice).
      if (to !== 'opencode' && errors(codecFor(from)!.parse(text).diagnostics).length === 0)
        expect(back.events.length).toBeGreaterThan(0);
    });
  });
});
