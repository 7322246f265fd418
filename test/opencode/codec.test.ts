import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, type AgentEventOf, opencode } from '../../src/all';
import { loadFixture } from '../../src/node/fixtures';
import { captureSuite, captures, decodeChunks, fixtureSuite, withoutRaw } from '../agent-suite';
import { chunkAt } from '../golden';

captureSuite(opencode, 'opencode', 'opencode');

fixtureSuite(opencode, 'opencode', {
  'missing-terminal': ['warning order @4', 'warning order @4'],
  'unknown-and-bad': ['error invalid_json @3', 'error invalid_record @4'],
});

const [[, capture]] = captures('opencode') as [[string, Uint8Array]];
const captureText = new TextDecoder().decode(capture);
const crlfText = captureText.replaceAll('\n', '\r\n');
const crlf = new TextEncoder().encode(crlfText);

const of = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is AgentEventOf<T> => e.type === type);

describe('OpenCode: CRLF (Windows os.EOL)', () => {
  const parsed = opencode.parse(crlf);

  test('a CRLF capture reads as the LF one (only the line-end hint differs) and is written back with CRLF', () => {
    expect(parsed.diagnostics).toEqual([]);
    const lf = opencode.parse(capture).events;
    // The same events; only the offsets (one more byte per line) and the line-end hint differ.
    const facts = (events: AgentEvent[]) => events.map(({ provenance: _p, ...e }) => e);
    expect(facts(parsed.events)).toEqual(facts(lf));
    expect(
      parsed.events.filter((e) => !e.provenance?.synthetic).map((e) => e.provenance?.hints?.eol),
    ).toEqual(Array(lf.length - 2).fill('\r\n'));
    expect(opencode.stringify(parsed.events)).toBe(crlfText);
    expect(opencode.stringify(withoutRaw(parsed.events))).toBe(crlfText);
  });

  test('any chunking, a cut between CR and LF included, keeps every line end', () => {
    const cuts = [...crlfText.matchAll(/\r/g)].map((m) => m.index! + 1);
    expect(decodeChunks(opencode, chunkAt(crlf, cuts))).toEqual(parsed.events);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: crlf.length }), { maxLength: 16 }), (c) => {
        const events = decodeChunks(opencode, chunkAt(crlf, c));
        expect(events).toEqual(parsed.events);
        expect(opencode.stringify(events)).toBe(crlfText);
      }),
      { numRuns: 80 },
    );
  });

  test('string chunks with CRLF (also split between CR and LF) keep the line ends', () => {
    const decoder = opencode.createDecoder();
    const events: AgentEvent[] = [];
    for (let i = 0; i < crlfText.length; i += 7) events.push(...decoder.push(crlfText.slice(i, i + 7)));
    events.push(...decoder.end());
    expect(opencode.stringify(events)).toBe(crlfText);
  });

  test('mixed line ends and a last line without terminator come back as they were', () => {
    const lines = captureText.split('\n').filter((l) => l !== '');
    const mixed = `${lines[0]}\r\n${lines[1]}\n${lines[2]}\r\n${lines[3]}`;
    expect(opencode.stringify(opencode.parse(mixed).events)).toBe(mixed);
  });

  test('lineEnding writes foreign records with CRLF', () => {
    const out = opencode.stringify([{ type: 'text.delta', text: 'hi', ts: 1 }], {
      lineEnding: '\r\n',
      idSource: () => 'x',
    });
    expect(out.endsWith('\r\n')).toBe(true);
    expect(out.split('\r\n')).toHaveLength(3);
  });
});

describe('OpenCode: mapping', () => {
  const events = opencode.parse(capture).events;

  test('step_finish usage: canonical input counts the cache, cost in USD', () => {
    const [, second] = of(events, 'round.end');
    expect(second!.usage).toEqual({
      input: 671 + 21415,
      output: 8,
      cacheRead: 21415,
      cacheWrite: 0,
      reasoning: 0,
      costUsd: 0.001,
    });
    expect(second!.message).toBe('```\nhello\n```');
    expect(second!.stopReason).toBe('stop');
  });

  test('tool_use is one finished call: tool.start + tool.end from one line', () => {
    const [start] = of(events, 'tool.start');
    const [end] = of(events, 'tool.end');
    expect(start).toMatchObject({
      call: 'r9bQWsNLvOrJGIOz',
      name: 'bash',
      command: 'echo hello',
      startedAt: 1767036061123,
    });
    expect(end).toMatchObject({ ok: true, text: 'hello\n', exitCode: 0, endedAt: 1767036061173 });
    expect(start!.provenance!.line).toBe(end!.provenance!.line);
  });

  test('no done, last step stopped: the run completed (synthetic end)', () => {
    const end = events.at(-1) as AgentEventOf<'run.end'>;
    expect(end).toMatchObject({ type: 'run.end', status: 'completed', reason: 'stop' });
    expect(end.provenance!.synthetic).toBe(true);
  });

  test('no done and the last step did not stop: incomplete; an error: failed', () => {
    const cut = captureText.split('\n').slice(0, 3).join('\n');
    expect(opencode.parse(cut).events.at(-1)).toMatchObject({ type: 'run.end', status: 'incomplete' });
    const failed = `${cut}\n{"type":"error","timestamp":1,"sessionID":"ses_494719016ffe85dkDMj0FPRbHK","error":{"name":"UnknownError","data":{"message":"boom"}}}\n`;
    expect(opencode.parse(failed).events.at(-1)).toMatchObject({
      type: 'run.end',
      status: 'failed',
      error: 'boom',
    });
  });

  test('child session parts are a lane opened by child.start and closed by the task call', () => {
    const { events: child } = opencode.parse(
      new TextEncoder().encode(
        require('node:fs').readFileSync('fixtures/opencode/child-session.jsonl', 'utf8'),
      ),
    );
    const start = of(child, 'child.start')[0]!;
    const lane = child.filter((e) => e.lane === start.child);
    expect(lane.map((e) => e.type)).toEqual(['round.start', 'text.delta', 'round.end']);
    expect(of(child, 'child.end')[0]).toMatchObject({ child: start.child, status: 'completed' });
    expect(child.filter((e) => e.type === 'round.start' && e.lane === undefined).map((e) => e.round)).toEqual(
      [1, 2],
    );
  });

  test('an edited event is written as edited; the other lines stay as read', () => {
    const edited = events.map((e) => (e.type === 'text.delta' ? { ...e, text: 'bye' } : e));
    const out = opencode.stringify(edited).split('\n');
    const lines = captureText.split('\n');
    expect(out.filter((l, i) => l !== lines[i])).toHaveLength(1);
    expect(JSON.parse(out[4]!).part.text).toBe('bye');
    const usage = events.map((e) =>
      e.type === 'round.end' && e.round === 2 ? { ...e, usage: { ...e.usage, input: 30000 } } : e,
    );
    expect(JSON.parse(opencode.stringify(usage).split('\n')[5]!).part.tokens).toEqual({
      input: 30000 - 21415,
      output: 8,
      reasoning: 0,
      cache: { read: 21415, write: 0 },
    });
  });

  // A tool's output redacted by an edit or by deleting it leaves no copy in the line written back:
  // the shell tool keeps the whole output again in `metadata.output`, the read tool the start of
  // the file in `metadata.preview`. A deleted field is not written back from the kept line.
  test.each(['tool-then-text', 'crlf'])('%s: a redacted or deleted tool output leaves no copy', (name) => {
    const fixture = loadFixture('opencode', name);
    const { events } = opencode.parse(fixture.bytes);
    const ends = of(events, 'tool.end').filter((e) => e.text !== undefined);
    expect(ends.length).toBeGreaterThan(0);
    for (const end of ends) {
      const record = end.provenance!.hints!.record as { part: { state: { metadata?: object } } };
      const metadata = record.part.state.metadata;
      const copies = Object.values(metadata ?? {}).filter(
        (v): v is string => typeof v === 'string' && v !== '' && end.text!.includes(v),
      );
      for (const edit of [{ ...end, text: 'REDACTED' }, (({ text: _, ...e }) => e)(end)]) {
        const out = opencode.stringify(events.map((e) => (e === end ? (edit as AgentEvent) : e)));
        const line = out.split(/\r?\n/).find((l) => l.includes(`"callID":${JSON.stringify(end.call)}`))!;
        expect(line).not.toContain(JSON.stringify(end.text).slice(1, -1));
        for (const copy of copies) expect(line).not.toContain(JSON.stringify(copy).slice(1, -1));
        const back = of(opencode.parse(out).events, 'tool.end').find((e) => e.call === end.call)!;
        expect(back.text).toBe('text' in edit ? 'REDACTED' : '');
      }
    }
  });

  test('lines up to 16 MiB are read by default', () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const line = `{"type":"text","timestamp":1,"sessionID":"s","part":{"type":"text","text":"${big}"}}\n`;
    const r = opencode.parse(line);
    expect(r.diagnostics).toEqual([]);
    expect(of(r.events, 'text.delta')[0]!.text).toHaveLength(big.length);
  });
});

describe('OpenCode: events from elsewhere', () => {
  test('hand-built events become OpenCode lines that decode back to the same facts', () => {
    let n = 0;
    const out = opencode.stringify(
      [
        { type: 'run.start', session: 's1', input: 'go' },
        { type: 'text.delta', text: 'Run', ts: 10 },
        { type: 'text.delta', text: 'ning.', ts: 11 },
        { type: 'tool.start', call: 'c1', name: 'bash', args: { command: 'ls' }, ts: 12 },
        { type: 'tool.end', call: 'c1', ok: false, error: 'denied', exitCode: 2, ts: 13 },
        {
          type: 'round.end',
          message: 'Running.',
          stopReason: 'tool-calls',
          usage: { input: 100, output: 10, cacheRead: 40, reasoning: 3, costUsd: 0.5 },
          ts: 14,
        },
        { type: 'run.end', status: 'failed', error: 'gave up', ts: 15 },
      ],
      { idSource: () => String(++n), clock: () => 0 },
    );
    const { events, diagnostics } = opencode.parse(out);
    expect(diagnostics).toEqual([]);
    expect(opencode.check(out)).toEqual([]);
    expect(events.map((e) => e.type)).toEqual([
      'run.start',
      'round.start',
      'text.delta',
      'tool.start',
      'tool.end',
      'round.end',
      'error',
      'run.end',
    ]);
    expect(of(events, 'text.delta')[0]!.text).toBe('Running.');
    expect(of(events, 'tool.end')[0]).toMatchObject({ ok: false, error: 'denied', exitCode: 2 });
    expect(of(events, 'round.end')[0]!.usage).toEqual({
      input: 100,
      output: 10,
      cacheRead: 40,
      cacheWrite: 0,
      reasoning: 3,
      costUsd: 0.5,
    });
    expect(of(events, 'run.end')[0]).toMatchObject({ status: 'failed', error: 'gave up' });
  });

  test('what OpenCode cannot hold is a loss', () => {
    const fields: string[] = [];
    opencode.stringify(
      [
        { type: 'session.start', producer: 'x' },
        { type: 'status', status: 'running' },
        { type: 'tool.output', call: 'c', text: 'x' },
      ],
      { onDiagnostic: (d) => fields.push(d.field ?? '') },
    );
    expect(fields).toEqual(['session.start.producer', 'status', 'tool.output']);
  });
});
