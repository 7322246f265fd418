import { expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import { aisdk } from '../../src/formats/ai-sdk';

// The run's usage on `finish` is its rounds' summed when the run says none: summed exactly (the
// decimal a source wrote, as every run total in agentwire), never with float drift.
test('ai-sdk writer: round costs sum exactly into finish', () => {
  const events: AgentEvent[] = [
    { type: 'run.start', input: 'q' },
    { type: 'round.start' },
    { type: 'round.end', message: '', usage: { input: 1, output: 1, costUsd: 0.1 } },
    { type: 'round.start' },
    { type: 'round.end', message: '', usage: { input: 2, output: 2, costUsd: 0.2 } },
    { type: 'run.end', status: 'completed' },
  ];
  const enc = aisdk.createEncoder({ framing: 'jsonl' } as Parameters<typeof aisdk.createEncoder>[0]);
  let out = '';
  for (const e of events) out += enc.write(e);
  out += enc.end();
  const finish = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((c) => c.type === 'finish');
  expect(JSON.stringify(finish)).toContain('0.3');
  expect(JSON.stringify(finish)).not.toContain('0.30000000000000004');
  const back = aisdk.parse(out).events.find((e) => e.type === 'run.end');
  expect(back?.type === 'run.end' && back.usage?.costUsd).toBe(0.3);
});
