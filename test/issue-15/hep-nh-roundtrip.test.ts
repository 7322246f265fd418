import { expect, test } from 'vitest';
import { convert } from '../../src/convert';
import { listFixtures, loadFixture } from '../../src/node/fixtures';

// Issue #15 item 14: nativeharness `session_created` carries the producer, so HEP →
// nativeharness → HEP gives back every shipped HEP fixture byte for byte (not merely "stable").
const deterministic = () => {
  let n = 0;
  return { clock: () => 1767225600000, idSource: () => `id-${++n}` };
};

// Frames nativeharness has no event for: reported as `loss`, so those two fixtures cannot come back.
const NO_PLACE: Record<string, string> = { liveness: 'tool.liveness', 'unknown-frame': 'unknown.record' };

for (const { name } of listFixtures().filter((f) => f.format === 'hep')) {
  test(`hep/${name} → nativeharness → hep is identical`, () => {
    const fx = loadFixture('hep', name);
    const nh = convert(fx.bytes, { from: 'hep', to: 'nativeharness', ...deterministic() });
    const lost = nh.diagnostics.map((d) => d.field);
    expect(lost).not.toContain('session.start.producer');
    expect(lost).not.toContain('tool.start.argsSummary');
    const back = convert(nh.output, { from: 'nativeharness', to: 'hep', ...deterministic() });
    if (NO_PLACE[name] === undefined) expect(back.output).toBe(fx.text);
    else {
      expect(lost).toContain(NO_PLACE[name]);
      expect(back.output).not.toBe(fx.text);
    }
  });
}
