import { describe, expect, test } from 'vitest';
import { type AgentEvent, claude, type Diagnostic } from '../../src/all';
import { loadFixture } from '../../src/node/fixtures';
import { expectRefusedAlone, NON_FINITE, nonFiniteRefusal, writeRefusing } from '../refused-writes';

// A call's end with an error the Claude writer left nowhere a reader takes it back from, with no
// loss said (`error` is carried): beside a text and a result (`tool_use_result` held the result),
// on a call that succeeded (no error is read for one), or not text (an object was written as the
// line's `tool_use_result`, read back as a result, the error as ''). A reader takes a failed call's
// error from its `tool_use_result` string, else from its block's text. Now the error is written
// there (a value that is not text as JSON text, as the Amp writer does), or reported lost.

// A call's start, its end `end` and the run's end, `later` before that.
const around = (end: AgentEvent, later: AgentEvent[] = []): AgentEvent[] => [
  { type: 'session.start', session: 's' },
  { type: 'run.start', input: 'go' },
  { type: 'tool.start', call: 'c1', name: 'deploy', args: {} },
  { type: 'message.end' },
  end,
  ...later,
  { type: 'run.end', status: 'completed' },
];

function write(end: AgentEvent): { text: string; refusals: string[]; losses: string[] } {
  const diagnostics: Diagnostic[] = [];
  const encoder = claude.createEncoder({ session: 's', onDiagnostic: (d) => diagnostics.push(d) });
  const { text, refusals } = writeRefusing(encoder, around(end));
  const losses = diagnostics.filter((d) => d.code === 'loss').map((d) => d.field ?? '');
  return { text, refusals, losses };
}

const end = (fields: Partial<AgentEvent & { type: 'tool.end' }>): AgentEvent =>
  ({ type: 'tool.end', call: 'c1', name: 'deploy', ok: false, ...fields }) as AgentEvent;

const readBack = (text: string) => claude.parse(text).events.find((e) => e.type === 'tool.end');

// [what, the end's fields, what the end reads back as]: each is written where it is read back.
const kept: ReadonlyArray<[string, Partial<AgentEvent & { type: 'tool.end' }>, Record<string, unknown>]> = [
  ['a text error alone', { error: 'denied' }, { error: 'denied', text: 'denied' }],
  ['an object error alone', { error: { code: 403 } }, { error: '{"code":403}', text: '{"code":403}' }],
  ['a number error alone', { error: 7 }, { error: '7' }],
  ['a text and a text error', { text: 'x', error: 'boom' }, { error: 'boom', text: 'x' }],
  ['a text and an object error', { text: 'x', error: { code: 1 } }, { error: '{"code":1}', text: 'x' }],
  ['a result and a text error', { result: { a: 1 }, error: 'boom' }, { error: 'boom', result: { a: 1 } }],
  [
    'a result and an object error',
    { result: { a: 1 }, error: { code: 1 } },
    { error: '{"code":1}', result: { a: 1 } },
  ],
  ['a text result and a text error', { result: 'out', error: 'boom' }, { error: 'boom', text: 'out' }],
  ['a text, a result and the text as error', { text: 'x', result: { a: 1 }, error: 'x' }, { error: 'x' }],
];

for (const [what, fields, back] of kept) {
  test(`a failed call's end with ${what}: its error reads back, no loss`, () => {
    const { text, refusals, losses } = write(end(fields));
    expect(refusals).toEqual([]);
    expect(losses).not.toContain('tool.end.error');
    expect(readBack(text)).toMatchObject({ call: 'c1', ok: false, ...back });
  });
}

test("a failed call's null error is none: no tool_use_result null (read back as a result)", () => {
  const { text, losses } = write(end({ error: null as unknown as string }));
  expect(losses).not.toContain('tool.end.error');
  expect(text).not.toContain('"tool_use_result"');
  expect(readBack(text)).not.toHaveProperty('result');
});

const lost: ReadonlyArray<[string, Partial<AgentEvent & { type: 'tool.end' }>]> = [
  ['a text, a result and an object error', { text: 'x', result: { a: 1 }, error: { code: 403 } }],
  ['a text, a result and a text error', { text: 'x', result: { a: 1 }, error: 'boom' }],
  ['a text, a text result and a text error', { text: 'x', result: 'out', error: 'boom' }],
  ['a successful call with an object error', { ok: true, error: { code: 1 } }],
  ['a successful call with a text error', { ok: true, error: 'boom' }],
];

for (const [what, fields] of lost) {
  test(`a call's end with ${what}: its error is reported lost`, () => {
    const { refusals, losses } = write(end(fields));
    expect(refusals).toEqual([]);
    expect(losses).toContain('tool.end.error');
  });
}

test("a successful call's null error is none: nothing lost", () => {
  expect(write(end({ ok: true, error: null as unknown as string })).losses).not.toContain('tool.end.error');
});

for (const [name, value] of NON_FINITE) {
  test(`an error holding ${name} is refused, not written as null; the refused end reports no loss`, () => {
    const { refusals, losses } = write(end({ text: 'x', result: { a: 1 }, error: { n: value } }));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatch(nonFiniteRefusal('tool\\.end\\.error\\.n', name));
    expect(losses).not.toContain('tool.end.error');
  });
}

test('a refused end reports no loss of its error (the loss is said only for an end written)', () => {
  const { refusals, losses } = write(end({ ok: true, result: { v: BigInt(7) }, error: 'boom' }));
  expect(refusals).toHaveLength(1);
  expect(losses).not.toContain('tool.end.error');
});

// A result nested as deep as the writer's bound passed the end's own check but not its record's
// (one level deeper): refused at the push, after an init was written, an id taken and the call
// let go. Checked at its depth in the record now, before anything is done for it.
test('an end whose result is too deep in its record is refused alone, with no loss said', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 1000; i++) deep = { d: deep };
  const bad = end({ text: 'x', result: deep as Record<string, unknown>, error: 'boom' });
  const losses: string[] = [];
  const writer = (events: readonly AgentEvent[]) => {
    let n = 0;
    const onDiagnostic = (d: Diagnostic) => {
      if (d.code === 'loss') losses.push(d.field ?? '');
    };
    return writeRefusing(claude.createEncoder({ idSource: () => `id${n++}`, onDiagnostic }), events);
  };
  const stream = around(bad, [{ type: 'text.delta', text: 'Done.' }]);
  expectRefusedAlone(writer, stream, bad, /^record\.tool_use_result(\.d)+: /);
  expect(losses).not.toContain('tool.end.error');
});

// A Claude line put back as it was (its events unchanged but for what the writer patches) kept the
// error the line said when an edit gave a call an error that is not text, or gave a call that
// succeeded an error its line happens to hold: the edit was dropped with nothing said. Such an end
// is written anew now, its error where a reader takes it back or reported lost.
describe('an edited Claude tool.end', () => {
  const { events } = claude.parse(loadFixture('claude', 'tools').bytes);
  const failedAt = events.findIndex((e) => e.type === 'tool.end' && !e.ok);
  const okAt = events.findIndex((e) => e.type === 'tool.end' && e.ok && e.text !== undefined);

  function rewrite(at: number, fields: Partial<AgentEvent & { type: 'tool.end' }>) {
    const edited = [...events];
    edited[at] = { ...(events[at] as AgentEvent & { type: 'tool.end' }), ...fields };
    const diagnostics: Diagnostic[] = [];
    const text = claude.stringify(edited, { onDiagnostic: (d) => diagnostics.push(d) });
    const call = (events[at] as AgentEvent & { type: 'tool.end' }).call;
    const back = claude.parse(text).events.find((e) => e.type === 'tool.end' && e.call === call);
    const losses = diagnostics.filter((d) => d.code === 'loss').map((d) => d.field ?? '');
    return { back, losses };
  }

  test('the fixture has a failed and a successful call', () => {
    expect(failedAt).toBeGreaterThan(0);
    expect(okAt).toBeGreaterThan(0);
  });

  test("a failed call's error made an object reads back as its JSON text", () => {
    const { back, losses } = rewrite(failedAt, { error: { code: 403 } });
    expect(losses).not.toContain('tool.end.error');
    expect(back).toMatchObject({ ok: false, error: '{"code":403}' });
  });

  test('a successful call given its text as an error: the error is reported lost', () => {
    const e = events[okAt] as AgentEvent & { type: 'tool.end' };
    expect(rewrite(okAt, { error: e.text }).losses).toContain('tool.end.error');
  });
});
