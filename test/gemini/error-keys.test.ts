import { describe, expect, test } from 'vitest';
import { type AgentEvent, gemini } from '../../src/all';

// Keys no reader knows (test/hostile/unknown-keys.test.ts, exempted until round thirty-two): a key
// of a later Gemini CLI's in a tool result's or the run's `error` was dropped (the writer wrote
// `{type, message}` only), and so was a key of `stats.models` that is no model (the writer wrote
// the models of the usage only), with nothing said. Now the error is kept as written when it has
// keys of its own, and the models' map keeps what is no model.

const T = '2026-03-19T10:14:27.962Z';
const lines = (...l: string[]) => `${l.join('\n')}\n`;
const init = `{"type":"init","timestamp":"${T}","session_id":"s1","model":"auto"}`;
const user = `{"type":"message","timestamp":"${T}","role":"user","content":"hi"}`;
const use = `{"type":"tool_use","timestamp":"${T}","tool_name":"read","tool_id":"c1","parameters":{}}`;
const stats =
  '"stats":{"total_tokens":12,"input_tokens":10,"output_tokens":2,"cached":4,"input":6,"duration_ms":5,"tool_calls":1,"models":{"m":{"total_tokens":12,"input_tokens":10,"output_tokens":2,"cached":4,"input":6}}}';

function toolResult(error: string): string {
  return `{"type":"tool_result","timestamp":"${T}","tool_id":"c1","status":"error","output":"no","error":${error}}`;
}

function result(error: string, statsText = stats): string {
  return `{"type":"result","timestamp":"${T}","status":"error","error":${error},${statsText}}`;
}

function roundTrip(text: string): string {
  const { events, diagnostics } = gemini.parse(text);
  expect(diagnostics).toEqual([]);
  return gemini.stringify(events);
}

function edit(text: string, f: (e: AgentEvent) => void): string {
  const { events } = gemini.parse(text);
  for (const e of events) f(e);
  return gemini.stringify(events);
}

describe('gemini: a key of its own in an error object comes back', () => {
  test.each([
    ['first', '{"zz_extra":1,"type":"file_not_found","message":"gone"}'],
    ['last', '{"type":"TOOL_EXECUTION_ERROR","message":"gone","zz_extra":{"a":[1,"x"]}}'],
  ])("a tool result's error, the key %s", (_, error) => {
    const text = lines(init, user, use, toolResult(error), result('{"type":"Error","message":"m"}'));
    expect(roundTrip(text)).toBe(text);
  });

  test.each([
    ['failed', '{"zz_extra":1,"type":"FatalTurnLimitedError","message":"Quota exhausted"}'],
    ['cancelled', '{"type":"FatalCancellationError","message":"Operation cancelled.","zz_extra":[1,"x"]}'],
    ['cancelled, another type', '{"type":"Cancelled2","zz_extra":true,"message":"Operation cancelled."}'],
  ])("the run's error, %s", (_, error) => {
    const text = lines(init, user, result(error));
    expect(roundTrip(text)).toBe(text);
  });

  test("an edited message is written in the error's place, its own keys kept", () => {
    const text = lines(init, user, use, toolResult('{"type":"t","zz_extra":1,"message":"gone"}'));
    const out = edit(text, (e) => {
      if (e.type === 'tool.end') e.error = 'moved';
    });
    expect(out).toContain('"error":{"type":"t","zz_extra":1,"message":"moved"}');
  });

  test("a tool result's error with a key of its own nesting past the depth bound is refused at read", () => {
    const deep = `${'['.repeat(8)}${']'.repeat(8)}`;
    const text = lines(init, user, use, toolResult(`{"type":"t","message":"m","zz_extra":${deep}}`));
    const { diagnostics } = gemini.parse(text, { maxDepth: 4 });
    expect(diagnostics.map((d) => `${d.code} @${d.line}`)).toEqual(['nesting_too_deep @4']);
  });
});

describe('gemini: a key of stats.models that is no model comes back', () => {
  const models = (inner: string) => stats.replace(/"models":\{.*\}\}$/, `"models":${inner}}`);
  const m = '"m":{"total_tokens":12,"input_tokens":10,"output_tokens":2,"cached":4,"input":6}';

  test.each([
    ['first', `{"zz_extra":1,${m}}`],
    ['last', `{${m},"zz_extra":"x"}`],
    ['an object', `{${m},"zz_extra":{"a":[1,"x"]}}`],
    ['null', `{"zz_extra":null,${m}}`],
  ])('%s', (_, inner) => {
    const text = lines(
      init,
      user,
      `{"type":"result","timestamp":"${T}","status":"success",${models(inner)}}`,
    );
    expect(text).toContain('zz_extra');
    expect(roundTrip(text)).toBe(text);
  });

  // An object with none of a model's figures (`total_tokens`, `input_tokens`, …) was read as one
  // more model, with no figures: the line came back, but the run's end said a model it never had.
  test.each([
    ['beside a model', `{${m},"zz_extra":{"a":[1,"x"]}}`, ['m']],
    ['alone', '{"zz_extra":{"a":[1,"x"]}}', undefined],
    ['empty', '{"zz_extra":{}}', undefined],
  ])('an object that is no model is read as none (%s)', (_, inner, names) => {
    const text = lines(
      init,
      user,
      `{"type":"result","timestamp":"${T}","status":"success",${models(inner)}}`,
    );
    const { events, diagnostics } = gemini.parse(text);
    expect(diagnostics).toEqual([]);
    const end = events.find((e) => e.type === 'run.end');
    const byModel = end?.type === 'run.end' ? end.usage?.byModel : undefined;
    expect(byModel === undefined ? undefined : Object.keys(byModel)).toEqual(names);
    expect(roundTrip(text)).toBe(text);
  });

  test('an object that is no model is kept in its place when a model is edited', () => {
    const text = lines(
      init,
      user,
      `{"type":"result","timestamp":"${T}","status":"success",${models(`{"zz_extra":{"a":[1,"x"]},${m}}`)}}`,
    );
    const out = edit(text, (e) => {
      if (e.type === 'run.end') e.usage!.byModel!.m!.output = 3;
    });
    expect(out).toContain(
      '"models":{"zz_extra":{"a":[1,"x"]},"m":{"total_tokens":12,"input_tokens":10,"output_tokens":3,',
    );
  });

  test("a model's edited figures are patched in, the key that is no model kept in its place", () => {
    const text = lines(
      init,
      user,
      `{"type":"result","timestamp":"${T}","status":"success",${models(`{"zz_extra":1,${m}}`)}}`,
    );
    const out = edit(text, (e) => {
      if (e.type === 'run.end') e.usage!.byModel!.m!.output = 3;
    });
    expect(out).toContain(
      '"models":{"zz_extra":1,"m":{"total_tokens":12,"input_tokens":10,"output_tokens":3,',
    );
  });
});
