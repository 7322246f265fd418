import { describe, expect, test } from 'vitest';
import { highbar } from '../../src/all';
import { loadFixture } from '../../src/node/fixtures';

const findings = (text: string) => highbar.check(text).map((d) => `${d.severity} ${d.code}@${d.line ?? '-'}`);
const HELLO = '{"v": 1, "type": "hello", "ts": 1.5, "sdk": "a/1", "pid": 1, "tools": ["f"]}\n';
const TOOL = (context: string) =>
  `{"v": 1, "type": "tool", "ts": 2.5, "fn": "f", "args": {}, "result": null, "error": null, "started_at": 2.5, "ended_at": 2.5${context}}\n`;

describe('highbar.check: what highbar expects of an emitter', () => {
  test('the contract examples and the reference emitter conform', () => {
    expect(highbar.check(loadFixture('highbar', 'contract-examples').bytes)).toEqual([]);
    expect(highbar.check(loadFixture('highbar', 'reference-emitter').bytes)).toEqual([]);
  });

  test('a v1 trace without hello, or with hello late', () => {
    expect(findings(TOOL(', "context": {"test": "t"}'))).toEqual(['warning order@1']);
    expect(findings(TOOL(', "context": {"test": "t"}') + HELLO)).toEqual(['warning order@2']);
  });

  test('a writer that declares nothing; a tool record that belongs to no test', () => {
    expect(findings('{"v": 1, "type": "hello", "ts": 1.5, "sdk": "a/1", "pid": 1}\n')).toEqual([
      'warning order@-',
    ]);
    expect(findings(HELLO + TOOL(''))).toEqual(['info order@2']);
  });

  test('v0 traces have no hello and no context.test: nothing to say', () => {
    expect(highbar.check(loadFixture('highbar', 'v0').bytes)).toEqual([]);
  });
});
