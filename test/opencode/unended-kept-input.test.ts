import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { opencode } from '../../src/formats/opencode/index';
import { keptValueText } from '../../src/formats/opencode/non-finite';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, refusingWriter } from '../refused-writes';

// Round thirty-three: an OpenCode call whose end was taken out of the stream is written at the
// run's end, from its start, as a failed call. When the kept input of its line spells a number
// past a double's range (`1e400`, read as Infinity), that write refused the input there: the
// run's end was refused for it, and the writer's end threw (the call was still held). Now the
// call is written with its input as the line spells it; a start whose arguments were edited to
// hold a number JSON cannot hold is refused at its own write, as another format's is.

const write = refusingWriter((o) => opencode.createEncoder({ ...o, clock: () => 5 }));
const SOURCE = readFileSync(join(__dirname, '../../fixtures/opencode/tool-then-text.jsonl'), 'utf8');

function events(n: string): AgentEvent[] {
  const text = SOURCE.replace('"input":{', `"input":{"zz":${n},"deep":[1,{"n":${n}}],`);
  return opencode.parse(text).events;
}

const isFirstEnd = (e: AgentEvent) => e.type === 'tool.end' && e.call === 'call_Xy12';

describe("OpenCode: a call that never ended, its kept input past a double's range", () => {
  for (const n of ['1e400', '-1e400', '2E+999']) {
    test(`${n}: written at the run's end with its input as the line spells it`, () => {
      const stream = events(n).filter((e) => !isFirstEnd(e));
      const w = write(stream);
      expect(w.refusals).toEqual([]);
      const failed = w.text.split('\n').find((l) => l.includes('"callID":"call_Xy12"'));
      expect(failed).toContain(`"input":{"zz":${n},"deep":[1,{"n":${n}}],"command":"npm test"`);
      expect(failed).toContain('"status":"error"');
      // It reads back as the call it was, failed.
      const back = opencode.parse(w.text).events;
      const argsOf = (es: AgentEvent[]) =>
        es.flatMap((e) => (e.type === 'tool.start' && e.call === 'call_Xy12' ? [e.args] : []));
      expect(argsOf(back)).toEqual(argsOf(stream));
      expect(argsOf(back)[0]).toMatchObject({ zz: n.startsWith('-') ? -Infinity : Infinity });
      expect(back.some((e) => e.type === 'run.end' && e.status === 'completed')).toBe(true);
    });
  }

  test("no run's end: the writer's end writes it so, and does not throw", () => {
    const stream = events('1e400').filter((e) => !isFirstEnd(e) && e.type !== 'run.end');
    const w = write(stream);
    expect(w.refusals).toEqual([]);
    expect(w.text).toContain('"input":{"zz":1e400,');
  });

  test('the call ended: its line is written as it came, nothing refused', () => {
    const text = SOURCE.replace('"input":{', '"input":{"zz":1e400,');
    expect(opencode.stringify(opencode.parse(text).events)).toBe(text);
  });

  for (const [name, v] of [
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
  ] as const) {
    test(`a start whose arguments were edited to hold ${name} is refused at its own write`, () => {
      const source = events('1e400').filter((e) => !isFirstEnd(e));
      const stream = source.map((e) =>
        e.type === 'tool.start' && e.call === 'call_Xy12'
          ? ({ ...e, args: { ...e.args, edited: v } } as AgentEvent)
          : e,
      );
      const bad = stream.find((e) => e.type === 'tool.start' && e.call === 'call_Xy12')!;
      expectRefusedAlone(
        write,
        stream,
        bad,
        new RegExp(
          `^tool\\.start\\.args\\.(edited|zz): ${name === 'NaN' ? 'NaN' : 'Infinity'} is not a finite number`,
        ),
      );
    });
  }
});

describe('keptValueText', () => {
  const v = { a: Number.POSITIVE_INFINITY, b: [1] };
  test('finds the value at a path, spaces and key escapes aside; the last of a key twice', () => {
    const raw = ' { "x" : 1 , "p\\u0061rt" : { "in" : {"a":0}, "in" :\t{"a":1e400,"b":[1]} } } ';
    expect(keptValueText(raw, ['part', 'in'], v)).toBe('{"a":1e400,"b":[1]}');
  });
  test('undefined where the text is not there, reads otherwise, or is no JSON', () => {
    expect(keptValueText('{"part":{"in":{"a":1e400,"b":[2]}}}', ['part', 'in'], v)).toBeUndefined();
    expect(keptValueText('{"part":{"out":{}}}', ['part', 'in'], v)).toBeUndefined();
    expect(keptValueText('{"part":[{"in":{}}]}', ['part', 'in'], v)).toBeUndefined();
    expect(keptValueText('{"part":{"in":{"a":1e400,"b":[1]}', ['part', 'in'], v)).toBeUndefined();
    expect(keptValueText('{"part":{"in":{"a":1e400,"b":[1', ['part', 'in'], v)).toBeUndefined();
    expect(keptValueText('{"part":{"in":NaN}}', ['part', 'in'], Number.NaN)).toBeUndefined();
  });
});
