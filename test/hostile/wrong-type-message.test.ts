import { describe, expect, test } from 'vitest';
import type { Codec } from '../../src/codec';
import { codecs } from '../../src/formats/index';
import type { AgentEvent } from '../../src/model';
import { writeRefusing } from '../refused-writes';

// Round thirty-six. A field given a value of the wrong type is refused in one shape by every
// writer, `<field>: <kind>, not a <expected>` (`wrongType`, src/json.ts): the HEP and
// nativeharness writers said `expected a string, got null`, a number field `a null, not a number`
// or `a object, not a number`, the nativeharness writer's cost `a BigInt (5n), not a number`
// without the way out, or `null is not a finite number` for a null.

const ADVICE = '; convert it with Number() if it is within 2^53';

/** The messages `format`'s writer refuses `events` with (ids and clock fixed). */
function refusals(format: string, events: readonly unknown[]): string[] {
  const codec = (codecs as Record<string, Codec | undefined>)[format]!;
  const encoder = codec.createEncoder({
    idSource: () => 'id',
    onDiagnostic() {},
    clock: () => 1_767_225_600_000,
  } as Parameters<Codec['createEncoder']>[0]);
  return writeRefusing(encoder, events as AgentEvent[]).refusals;
}

const cost = (costUsd: unknown) => ({
  type: 'run.end',
  status: 'completed',
  usage: { input: 1, output: 1, costUsd },
});

describe('one refusal of a value of the wrong type', () => {
  test.each<[string, string, unknown[], string]>([
    [
      'HEP',
      'hep',
      [{ type: 'run.start' }, { type: 'tool.start', call: null, name: 'n', args: {} }],
      'tool.start.call: null, not a string',
    ],
    [
      'HEP, missing',
      'hep',
      [{ type: 'run.start' }, { type: 'tool.start', name: 'n', args: {} }],
      'tool.start.call: missing, not a string',
    ],
    ['HEP, a text', 'hep', [{ type: 'text.delta', text: 5 }], 'text.delta.text: a number, not a string'],
    [
      'nativeharness',
      'nativeharness',
      [{ type: 'run.start' }, { type: 'tool.start', call: null, name: 'n', args: {} }],
      'tool.start.call: null, not a string',
    ],
    [
      'nativeharness, an array',
      'nativeharness',
      [{ type: 'run.start' }, { type: 'tool.start', call: 'c', name: ['x'], args: {} }],
      'tool.start.name: an array, not a string',
    ],
    [
      'nativeharness, a BigInt cost',
      'nativeharness',
      [{ type: 'run.start' }, cost(BigInt(5))],
      `usage.costUsd: a BigInt, not a number${ADVICE}`,
    ],
    [
      'nativeharness, a string cost',
      'nativeharness',
      [{ type: 'run.start' }, cost('5')],
      'usage.costUsd: a string, not a number',
    ],
    [
      'Claude, a text',
      'claude',
      [{ type: 'text.delta', text: 5 }],
      'text.delta.text: a number, not a string',
    ],
    [
      'AG-UI, a null ts',
      'ag-ui',
      [{ type: 'text.delta', text: 'x', ts: null }],
      'text.delta.ts: null, not a number',
    ],
    [
      'AG-UI, an object ts',
      'ag-ui',
      [{ type: 'text.delta', text: 'x', ts: { ms: 1 } }],
      'text.delta.ts: an object, not a number',
    ],
    [
      'AG-UI, a BigInt ts',
      'ag-ui',
      [{ type: 'text.delta', text: 'x', ts: BigInt(5) }],
      `text.delta.ts: a BigInt, not a number${ADVICE}`,
    ],
  ])('%s', (_name, format, events, message) => {
    expect(refusals(format, events)).toEqual([message]);
  });
});
