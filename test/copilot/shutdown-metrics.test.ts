import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { type AgentEvent, copilot, type Usage } from '../../src/all';

// A shutdown's `modelMetrics` maps each model to its entry; the decoder reads a model from an
// entry with a `usage` object only. A key that is no such entry (a key no reader knows: a number,
// an object of another shape) was dropped by the writer, which built the map from the event's
// models alone, with nothing said. It stays where it was now; a model the event no longer has
// still leaves, and one it gained is added after the kept ones.

const lines = readFileSync('fixtures/copilot/usage.jsonl', 'utf8').split('\n');
const AT = lines.findIndex((l) => l.includes('"session.shutdown"'));
const HEAD = '"modelMetrics":{';

function withMetricsKey(key: string, atEnd = false): string {
  const line = lines[AT]!;
  const changed = atEnd
    ? line.replace('}}},"currentModel"', `}},${key}},"currentModel"`)
    : line.replace(HEAD, `${HEAD}${key},`);
  expect(changed).not.toBe(line);
  return lines.map((l, i) => (i === AT ? changed : l)).join('\n');
}

const roundTrip = (input: string) => copilot.stringify(copilot.parse(input).events);

test('a key of modelMetrics that is no model comes back where it was', () => {
  for (const key of ['"zz":1', '"zz":{"a":[1,"x"]}', '"zz":{"requests":{"count":1}}', '"zz":null'])
    for (const atEnd of [false, true]) {
      const input = withMetricsKey(key, atEnd);
      expect(roundTrip(input)).toBe(input);
    }
});

type ByModel = NonNullable<Usage['byModel']>;

function shutdownWith(input: string, byModel: (m: ByModel) => ByModel) {
  const events = copilot.parse(input).events.map((e): AgentEvent => {
    if (e.type !== 'usage' || e.usage.scope !== 'thread') return e;
    return { ...e, usage: { ...e.usage, byModel: byModel(e.usage.byModel!) } };
  });
  const out = copilot.stringify(events).split('\n')[AT]!;
  return JSON.parse(out).data.modelMetrics as Record<string, unknown>;
}

test('a model taken out of the event leaves; one added goes after the kept keys; the others stay', () => {
  const input = withMetricsKey('"zz":1');
  const metrics = shutdownWith(input, (m) => {
    const { 'claude-haiku-4.5': _, ...rest } = m;
    return { ...rest, 'gpt-5': { input: 3, output: 4 } };
  });
  expect(Object.keys(metrics)).toEqual(['zz', 'claude-sonnet-4.5', 'gpt-5']);
  expect(metrics.zz).toBe(1);
  expect(metrics['gpt-5']).toEqual({
    requests: {},
    usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
});

test('a key that was no model, named by the event as a model, is that model', () => {
  const input = withMetricsKey('"zz":{"requests":{"count":1}}');
  const metrics = shutdownWith(input, (m) => ({ ...m, zz: { input: 1, output: 2 } }));
  expect(Object.keys(metrics)).toEqual(['zz', 'claude-sonnet-4.5', 'claude-haiku-4.5']);
  expect(metrics.zz).toEqual({
    requests: { count: 1 },
    usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
});
