import { describe, test } from 'vitest';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, formatWriter, wrong } from '../refused-writes';

// Round thirty-six: the text-field check of the HEP, nativeharness, Gemini and Cursor writers
// asked in each writer's one switch of up-front checks (no second switch per write). A text
// field that holds no string refuses its event alone: the bytes are the stream's without it, so
// nothing was written or held for it (a later event's bytes would show a header marked written,
// a seq taken, a call kept). HEP and nativeharness refused several of these mid-write before.

const writer = formatWriter;

/** A run with one call, `bad` second after the run's start. */
function stream(bad: AgentEvent): AgentEvent[] {
  return [
    { type: 'run.start', run: 'r', session: 's' },
    bad,
    { type: 'text.delta', text: 'hi', round: 1 },
    { type: 'tool.start', call: 'c', name: 'n', args: {}, round: 1 },
    { type: 'tool.end', call: 'c', name: 'n', ok: true, text: 'out', round: 1 },
    { type: 'round.end', round: 1, message: 'm' },
    { type: 'run.end', status: 'completed' },
  ];
}

describe.each<[string, string, AgentEvent]>([
  ['hep', 'an error message', { type: 'error', message: wrong<string>(5), fatal: false, round: 1 }],
  ['hep', "a round's end message", { type: 'round.end', round: 1, message: wrong<string>(null) }],
  [
    'hep',
    "a round's stop reason",
    { type: 'round.end', round: 1, message: 'm', stopReason: wrong<string>(['x']) },
  ],
  ['hep', "a call's output", { type: 'tool.output', call: 'c', text: wrong<string>(7), round: 1 }],
  ['nativeharness', 'a session', { type: 'text.delta', text: 'x', session: wrong<string>(5), round: 1 }],
  ['nativeharness', 'a run', { type: 'text.delta', text: 'x', run: wrong<string>({ a: 1 }), round: 1 }],
  [
    'nativeharness',
    "a call's name",
    { type: 'tool.start', call: 'd', name: wrong<string>(1), args: {}, round: 1 },
  ],
  [
    'gemini',
    "a call's end's text",
    { type: 'tool.end', call: 'c', name: 'n', ok: true, text: wrong<string>(5), round: 1 },
  ],
  ['cursor', "a text delta's text", { type: 'text.delta', text: wrong<string>(null), round: 1 }],
  [
    'cursor',
    "a call's end's id",
    { type: 'tool.end', call: wrong<string>(5), name: 'n', ok: true, text: 'o', round: 1 },
  ],
])('%s: %s that is no string', (format, _what, bad) => {
  test('refused alone, nothing written or held for it', () => {
    expectRefusedAlone(writer(format), stream(bad), bad, /, not a string$/);
  });
});
