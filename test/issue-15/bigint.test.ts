import { expect, test } from 'vitest';
import { codecs } from '../../src/formats';
import type { AgentEvent, Usage } from '../../src/model';

// Issue #15 item 8: a BigInt where a number is due is named as a BigInt, in every writer.
const usages: Usage[] = [
  { input: 1n as unknown as number, output: 2 },
  { input: 1, output: 2, costUsd: 1n as unknown as number },
];

for (const [format, codec] of Object.entries(codecs)) {
  test(`${format}: a BigInt in usage is refused as a BigInt, not as "1 is not a safe integer"`, () => {
    for (const usage of usages) {
      const events: AgentEvent[] = [
        { type: 'run.start' },
        { type: 'round.end', message: 'm', usage },
        { type: 'run.end', status: 'completed', usage },
      ];
      let message: string | undefined;
      try {
        codec!.stringify(events, {});
      } catch (error) {
        message = (error as Error).message;
      }
      // A writer without a place for usage reports a loss and writes nothing of it.
      if (message === undefined) continue;
      expect(
        message,
        JSON.stringify(usage, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)),
      ).toMatch(/BigInt/);
      expect(message).not.toMatch(/is not a safe integer|is not a finite number/);
    }
  });
}
