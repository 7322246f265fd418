import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { type AgentEvent, cursor } from '../../src/all';

// Cursor repeats a call's arguments on its completion. The writer put the start's arguments there,
// so a completion whose own copy had a key the start's had not (a key no reader knows), or the
// other way round, lost it with nothing said (test/hostile/unknown-keys.test.ts left it open).
// While the start still says what its own line said, the completion keeps its own copy; an
// edited start's arguments go on both lines, as before.

const text = readFileSync('fixtures/cursor/tools.jsonl', 'utf8');
const lines = text.split('\n');
// Lines 7 and 9: the README read's start and completion.
const START = 6;
const END = 8;
const ARGS = '"args":{"path":"/home/dev/repo/README.md","offset":1,"limit":40}';

function withArgs(at: number, args: string): string {
  expect(lines[at]).toContain(ARGS);
  return lines.map((l, i) => (i === at ? l.replace(ARGS, args) : l)).join('\n');
}

const roundTrip = (input: string) => cursor.stringify(cursor.parse(input).events);

test("a completion's arguments with a key of their own come back as they are", () => {
  for (const key of ['"zz":1', '"zz":{"a":[1,"x"]}']) {
    const input = withArgs(END, `"args":{${key},"path":"/home/dev/repo/README.md","offset":1,"limit":40}`);
    expect(roundTrip(input)).toBe(input);
  }
});

test("a start's arguments with a key of their own do not go on the completion", () => {
  const input = withArgs(START, `"args":{"path":"/home/dev/repo/README.md","offset":1,"limit":40,"zz":1}`);
  expect(roundTrip(input)).toBe(input);
});

test("a start's argument that is null (or 1e400) does not go on the completion", () => {
  // \`null\` is a value \`sameAsKept\` refuses (it may stand for a number a JSON copy lost): the
  // start's arguments were taken for edited, and went on the completion.
  for (const args of [
    '"args":{"zz":null,"path":"/home/dev/repo/README.md","offset":1,"limit":40}',
    '"args":{"path":"/home/dev/repo/README.md","offset":1,"limit":40,"zz":{"a":[null]}}',
    // a number past a double (read as Infinity, which `sameAsKept` refuses too): the completion
    // was written with `"zz":null`
    '"args":{"path":"/home/dev/repo/README.md","offset":1,"limit":40,"zz":1e400}',
  ]) {
    const input = withArgs(START, args);
    expect(roundTrip(input)).toBe(input);
  }
});

test("an edited start's arguments go on its completion, whatever the completion's copy held", () => {
  const input = withArgs(END, `"args":{"zz":1,"path":"/home/dev/repo/README.md","offset":1,"limit":40}`);
  const events = cursor
    .parse(input)
    .events.map(
      (e): AgentEvent =>
        e.type === 'tool.start' && e.call === 'tool_r1' ? { ...e, args: { path: '/tmp/x' } } : e,
    );
  const out = cursor.stringify(events).split('\n');
  for (const at of [START, END])
    expect(JSON.parse(out[at]!).tool_call.readToolCall.args).toEqual({ path: '/tmp/x' });
});
