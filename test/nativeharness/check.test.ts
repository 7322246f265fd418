import { describe, expect, test } from 'vitest';
import { nativeharness } from '../../src/all';
import { listFixtures, loadFixture } from '../../src/node/fixtures';

const env = (seq: number, type: string, turn: string | null, payload: string) =>
  `{"seq":${seq},"ts":1767225600000,"type":"${type}","workspace_id":"w","session_id":"s","turn_id":${turn === null ? 'null' : `"${turn}"`},"payload":${payload}}`;
const SESSION = env(1, 'session_created', null, '{"v":1,"actor":"user","mode":"build"}');
const START = env(2, 'turn_started', 't', '{"input":"hi"}');
const DONE = (seq: number) =>
  env(
    seq,
    'done',
    't',
    '{"status":"completed","stop_reason":"stop","usage":{"input_tokens":1,"output_tokens":1,"cost_usd":0}}',
  );
const check = (...lines: string[]) =>
  nativeharness
    .check(`${lines.join('\n')}\n`, { framing: 'jsonl' })
    .map((d) => `${d.code}@${d.line}: ${d.message.replace(/^line \d+ \(byte \d+\): /, '')}`);

describe('nativeharness.check: the protocol’s ordering rules', () => {
  test('every shipped fixture conforms, in every framing', () => {
    for (const info of listFixtures('nativeharness')) {
      expect(nativeharness.check(loadFixture('nativeharness', info.name).bytes), info.name).toEqual([]);
    }
  });

  test('the log starts with session_created, once', () => {
    expect(check(START, DONE(3))).toEqual(['order@1: the log does not start with session_created']);
    expect(check(SESSION, env(2, 'session_created', null, '{"v":1,"actor":"u","mode":"m"}'))).toEqual([
      'order@2: a second session_created in one session',
    ]);
  });

  test('a turn’s events come after turn_started and before its done', () => {
    expect(check(SESSION, env(2, 'progress', 't', '{"status":"running"}'))).toEqual([
      'order@2: an event of turn "t" before its turn_started',
    ]);
    expect(check(SESSION, START, DONE(3), env(4, 'progress', 't', '{"status":"running"}'))).toEqual([
      'order@4: an event of turn "t" after its done',
    ]);
  });

  test('tool results, outputs and approvals belong to what started them', () => {
    const result = env(
      3,
      'tool_result',
      't',
      '{"hop":1,"call_id":"c","tool":"bash","status":"ok","exit_code":0,"files_changed":[],"output":""}',
    );
    expect(check(SESSION, START, result, DONE(4))).toEqual([
      'order@3: tool_result for call "c", which is not running',
    ]);
    const started = env(3, 'tool_started', 't', '{"hop":1,"call_id":"c","tool":"bash","args":{}}');
    expect(check(SESSION, START, started, DONE(4))).toEqual([
      'order@4: done while call "c" has no tool_result',
    ]);
    const resolved = env(3, 'approval_resolved', 't', '{"approval_id":"a","decision":"allow","by":"user"}');
    expect(check(SESSION, START, resolved, DONE(4))).toEqual([
      'order@3: approval_resolved for "a", which is not pending',
    ]);
  });

  test('hops do not go back within a turn', () => {
    const tok = (seq: number, hop: number) => env(seq, 'token', 't', `{"hop":${hop},"text":"x"}`);
    expect(check(SESSION, START, tok(3, 2), tok(4, 1), DONE(5))).toEqual([
      'order@4: hop 1 after hop 2 of the same turn',
    ]);
  });
});
