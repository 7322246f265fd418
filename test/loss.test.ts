import { describe, expect, test } from 'vitest';
import type { Diagnostic } from '../src/diagnostics';
import { LossReporter } from '../src/loss';
import type { AgentEvent } from '../src/model';

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
