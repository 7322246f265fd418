import { describe, expect, test } from 'vitest';
import {
  type AgentEvent,
  agui,
  aisdk,
  amp,
  codex,
  copilot,
  hep,
  highbar,
  nativeharness,
} from '../../src/all';

// The Amp, Codex, Copilot, nativeharness, HEP, highbar, AG-UI and AI SDK encoders keep their state in element 0 of a class instance with no named
// property of its own, so every encoder has the class's initial hidden class, which outlives a
// full GC (docs/performance.md, "Amp writer, round seven"). A named field added to the instance
// would bring back a hidden class the GC frees between encoders: this catches it.

// Timestamped, and the clock fixed: the Copilot writer reads the clock for records without an
// event's time (its shutdown record at the end), and two encoders compared byte for byte must not
// straddle a millisecond.
const ts = 1767225600000;
const options = { idSource: () => 'id', clock: () => ts };
const events: AgentEvent[] = [
  { type: 'run.start', ts },
  { type: 'message.start', role: 'assistant', ts },
  { type: 'text.delta', text: 'hi', ts },
  { type: 'round.end', message: 'hi', ts },
  { type: 'run.end', status: 'completed', answer: 'hi', ts },
];

describe.each([
  ['amp', amp],
  ['codex', codex],
  ['copilot', copilot],
  ['nativeharness', nativeharness],
  ['hep', hep],
  ['highbar', highbar],
  ['agui', agui],
  ['aisdk', aisdk],
] as const)('%s encoder', (_, codec) => {
  test('has no named own property, before and after writing', () => {
    const e = codec.createEncoder(options);
    expect(Object.getOwnPropertyNames(e)).toEqual(['0']);
    for (const ev of events) e.write(ev);
    e.end();
    expect(Object.getOwnPropertyNames(e)).toEqual(['0']);
    expect(Object.getPrototypeOf(e)).toBe(Object.getPrototypeOf(codec.createEncoder()));
  });

  test('writes through a method taken from one encoder and called on another', () => {
    const a = codec.createEncoder(options);
    const b = codec.createEncoder(options);
    const viaA = events.map((ev) => a.write.call(b, ev)).join('');
    const c = codec.createEncoder(options);
    expect(viaA + b.end()).toBe(events.map((ev) => c.write(ev)).join('') + c.end());
  });
});
