import { expect, test } from 'vitest';
import { hep } from '../../src/formats/hep/index';
import { loadFixture } from '../../src/node/fixtures';

// Issue #15 item 6: a follower (push decoder, no end of input, `live`) sees a HEP run end at its
// last round — a turn_done that ran no tool and did not stop for one — not only when the stream
// ends. A finished input keeps HEP's rule: the run ends with the stream.
test('live: the push decoder ends the run at a round without tools, before any end()', () => {
  const decoder = hep.createDecoder({ live: true });
  const lines = loadFixture('hep', 'tool-then-text').text.split('\n');
  const seen: string[] = [];
  for (const line of lines.slice(0, -1)) for (const e of decoder.push(`${line}\n`)) seen.push(e.type);
  expect(seen.slice(-2)).toEqual(['round.end', 'run.end']);
  expect(seen.filter((t) => t === 'run.end')).toHaveLength(1);
  expect(decoder.end()).toEqual([]);
});

test('not live: the run ends with the input (more rounds may follow a round without tools)', () => {
  const decoder = hep.createDecoder();
  const lines = loadFixture('hep', 'tool-then-text').text.split('\n');
  const seen: string[] = [];
  for (const line of lines.slice(0, -1)) for (const e of decoder.push(`${line}\n`)) seen.push(e.type);
  expect(seen).not.toContain('run.end');
  expect(decoder.end().map((e) => e.type)).toEqual(['run.end']);
});

test('live: a toolUse round does not end the run', () => {
  const decoder = hep.createDecoder({ live: true });
  const text = loadFixture('hep', 'tool-then-text').text.split('\n').slice(0, 7).join('\n');
  expect(decoder.push(`${text}\n`).map((e) => e.type)).not.toContain('run.end');
  expect(decoder.end().map((e) => e.type)).toEqual(['run.end']);
});

test('a run end already handed out is not changed by a round after it', () => {
  const text = loadFixture('hep', 'compaction-preflight').text;
  const lines = text.split('\n');
  lines.splice(6, 0, lines[6]!); // the last turn_done twice
  const events = hep.parse(lines.join('\n'), { live: true }).events;
  const end = events.find((e) => e.type === 'run.end');
  expect(end?.type === 'run.end' && end.usage).toEqual({ input: 9000, output: 8, costUsd: 0 });
});
