import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import type { Diagnostic } from '../src/diagnostics';
import { checkLoss, KEYS_IN_PLACE, LossReporter, newLoss } from '../src/loss';
import type { AgentEvent } from '../src/model';
import { FUZZ_RUNS } from './runs';

function reporter(): { loss: LossReporter; fields: () => (string | undefined)[] } {
  const seen: Diagnostic[] = [];
  const loss = new LossReporter('highbar', { report: (d) => seen.push(d) });
  return { loss, fields: () => seen.map((d) => d.field) };
}

describe('LossReporter.check', () => {
  const carried = ['ts', 'text'];

  test('each field it cannot carry is reported once, by the first event that sets it', () => {
    const { loss, fields } = reporter();
    loss.check({ type: 'text.delta', text: 'a', round: 1 } as AgentEvent, carried);
    loss.check({ type: 'text.delta', text: 'b', round: 2 } as AgentEvent, carried);
    loss.check({ type: 'text.delta', text: 'c', round: 3, session: 's' } as AgentEvent, carried);
    expect(fields()).toEqual(['text.delta.round', 'text.delta.session']);
  });

  test('a key present but unset is looked at again on the next event with the same keys', () => {
    const { loss, fields } = reporter();
    loss.check({ type: 'text.delta', text: 'a', round: undefined } as unknown as AgentEvent, carried);
    expect(fields()).toEqual([]);
    loss.check({ type: 'text.delta', text: 'b', round: 2 } as AgentEvent, carried);
    expect(fields()).toEqual(['text.delta.round']);
  });

  test('the same keys checked against a shorter carried list are checked again', () => {
    const { loss, fields } = reporter();
    loss.check({ type: 'tool.start', call: 'c', name: 'n', args: {} } as AgentEvent, [
      'call',
      'name',
      'args',
    ]);
    loss.check({ type: 'tool.start', call: 'c', name: 'n', args: {} } as AgentEvent, ['call', 'name']);
    expect(fields()).toEqual(['tool.start.args']);
  });
});

// checkLoss compares an event's keys with the last clean key list of its type in place (`for…in`)
// before it takes `Object.keys` (docs/performance.md, "Amp writer, round six"). This property
// holds the two equal on random runs of events: keys in any order, integer-like keys, keys unset,
// inherited enumerable keys, carried lists that differ by identity only.
describe('checkLoss: the in-place key compare against Object.keys', () => {
  afterEach(() => {
    KEYS_IN_PLACE.enabled = true;
  });

  const CARRIED = [['text'], ['text'], ['text', 'round'], []] as const;
  const key = fc.constantFrom('text', 'round', 'session', 'lane', 'seq', '1', '0');
  const value = fc.constantFrom<unknown>('a', 1, undefined, undefined, null);
  const event = fc.record({
    type: fc.constantFrom('text.delta', 'text.delta', 'text.delta', 'tool.start'),
    keys: fc.array(fc.tuple(key, value), { maxLength: 5 }),
    inherited: fc.array(fc.tuple(key, value), { maxLength: 2 }),
    carried: fc.nat({ max: CARRIED.length - 1 }),
    repeat: fc.nat({ max: 3 }),
  });

  type Step = typeof event extends fc.Arbitrary<infer T> ? T : never;

  function run(steps: Step[], inPlace: boolean): string[] {
    KEYS_IN_PLACE.enabled = inPlace;
    const out: string[] = [];
    const s = newLoss('amp', { report: (d) => out.push(`${d.field}|${d.message}`) });
    for (const step of steps) {
      const proto: Record<string, unknown> = {};
      for (const [k, v] of step.inherited) proto[k] = v;
      const e = Object.create(step.inherited.length > 0 ? proto : Object.prototype) as Record<
        string,
        unknown
      >;
      e.type = step.type;
      for (const [k, v] of step.keys) e[k] = v;
      for (let i = 0; i <= step.repeat; i++) checkLoss(s, e as unknown as AgentEvent, CARRIED[step.carried]!);
      out.push(`count ${s.count}`);
    }
    KEYS_IN_PLACE.enabled = true;
    return out;
  }

  test('the same reports, in the same order, with the same event numbers', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 25 }), (steps) => {
        expect(run(steps, true)).toEqual(run(steps, false));
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });
});
