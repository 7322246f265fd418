import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, AgentwireError, type Diagnostic, hep, isAgentwireError } from '../../src/all';
import { HEP_MAX_HELD_RESULT_CHARS, hepArgsSummary } from '../../src/formats/hep/index';

const write = (events: AgentEvent[], options: Parameters<typeof hep.stringify>[1] = {}) =>
  hep.stringify(events, { session: 's1', producer: '1.0.0', ...options });

const lines = (text: string) => text.split('\n').slice(0, -1);

describe('HEP writer: the bytes of every frame type (golden, from hep-v1-facts.md)', () => {
  const session: AgentEvent = { type: 'session.start', session: 's1', producer: '1.0.0' };
  const cases: Array<[string, AgentEvent, string]> = [
    ['hep_header', session, '{"type":"hep_header","hep":"v1","fah":"1.0.0","session":"s1"}'],
    ['agent_start', { type: 'run.start', round: 1 }, '{"type":"agent_start","turn_id":1}'],
    [
      'message_start',
      { type: 'message.start', role: 'assistant', round: 1 },
      '{"type":"message_start","turn_id":1,"role":"assistant"}',
    ],
    [
      'message_delta',
      { type: 'text.delta', text: 'Hi "you"\n\u0001\u2028/</script>😀', round: 1 },
      '{"type":"message_delta","turn_id":1,"delta":"Hi \\"you\\"\\n\\u0001\u2028/</script>😀"}',
    ],
    [
      'tool_start',
      { type: 'tool.start', call: 'c1', name: 'bash', args: { command: 'ls -la', timeout: 5 }, round: 1 },
      '{"type":"tool_start","turn_id":1,"id":"c1","name":"bash","args_summary":"command=\\"ls -la\\", timeout=5"}',
    ],
    [
      'tool_delta',
      { type: 'tool.output', call: 'c1', text: 'out\n', round: 1 },
      '{"type":"tool_delta","turn_id":1,"id":"c1","update":"out\\n"}',
    ],
    [
      'tool_liveness (minimal)',
      { type: 'tool.liveness', call: 'c1', name: 'bash', action: 'heartbeat', elapsedMs: 30000, round: 1 },
      '{"type":"tool_liveness","turn_id":1,"id":"c1","name":"bash","action":"heartbeat","elapsed_ms":30000}',
    ],
    [
      'tool_liveness (full)',
      {
        type: 'tool.liveness',
        call: 'c1',
        name: 'bash',
        action: 'escalate',
        elapsedMs: 9,
        outputBytes: 12,
        detail: 'stuck',
        round: 1,
      },
      '{"type":"tool_liveness","turn_id":1,"id":"c1","name":"bash","action":"escalate","elapsed_ms":9,"output_bytes":12,"detail":"stuck"}',
    ],
    [
      'turn_done',
      {
        type: 'round.end',
        message: 'ok',
        stopReason: 'stop',
        usage: { input: 3, output: 4, costUsd: 0 },
        round: 1,
      },
      '{"type":"turn_done","turn_id":1,"message":"ok","tool_results":[],"usage":{"input":3,"output":4,"cost":0.0},"stop_reason":"stop"}',
    ],
    [
      'turn_error',
      { type: 'error', message: 'boom', fatal: true, round: 1 },
      '{"type":"turn_error","turn_id":1,"error":"boom","fatal":true}',
    ],
    ['cancelled', { type: 'cancel', round: 1 }, '{"type":"cancelled","turn_id":1}'],
    ['compaction_start', { type: 'compaction.start', round: 1 }, '{"type":"compaction_start","turn_id":1}'],
    [
      'compaction_end',
      { type: 'compaction.end', tokensFreed: 42, round: 1 },
      '{"type":"compaction_end","turn_id":1,"tokens_freed":42}',
    ],
  ];
  test.each(cases)('%s', (_name, event, expected) => {
    const out = lines(write(event.type === 'session.start' ? [event] : [session, event]));
    expect(out.at(-1)).toBe(expected);
  });

  test('turn_done carries the round’s tool results in order, with text capped at 2000', () => {
    const long = 'x'.repeat(2500);
    const out = lines(
      write([
        { type: 'tool.start', call: 'a', name: 'read', args: { path: 'a' } },
        { type: 'tool.start', call: 'b', name: 'read', args: { path: 'b' } },
        { type: 'tool.end', call: 'b', name: 'read', ok: true, text: long },
        { type: 'tool.end', call: 'a', name: 'read', ok: false, text: 'ENOENT' },
        {
          type: 'round.end',
          message: '',
          stopReason: 'toolUse',
          usage: { input: 1, output: 2, costUsd: 0.5 },
        },
      ]),
    );
    expect(out.at(-1)).toBe(
      `{"type":"turn_done","turn_id":1,"message":"","tool_results":[{"id":"b","name":"read","ok":true,"text":"${'x'.repeat(2000)}…(+500 chars)"},{"id":"a","name":"read","ok":false,"text":"ENOENT"}],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"toolUse"}`,
    );
  });

  test('usage.cost is always a double: 0.0, 3.0, 0.0123, 1e-7', () => {
    const costs = [0, 3, 0.0123, 1e-7].map((c) =>
      lines(write([{ type: 'round.end', message: '', usage: { costUsd: c } }])).at(-1),
    );
    expect(costs.map((l) => /"cost":([^}]*)/.exec(l!)![1])).toEqual(['0.0', '3.0', '0.0123', '1e-7']);
  });

  test('no tool_delta is written for empty output', () => {
    const out = lines(write([{ type: 'session.start' }, { type: 'tool.output', call: 'c', text: '' }]));
    expect(out).toEqual(['{"type":"hep_header","hep":"v1","fah":"1.0.0","session":"s1"}']);
  });
});

describe('HEP writer: the one-template frames', () => {
  // message_delta and tool_delta are written as one template unless a HEP line's own fields (or
  // a kept line) must be restored: with an empty hints object the field-by-field path runs.
  test('give the bytes the field-by-field path gives, for any text, id and round', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(text, text, fc.integer({ min: 1, max: 2 ** 53 - 1 }), (t, call, round) => {
        const events: AgentEvent[] = [
          { type: 'text.delta', text: t, round },
          { type: 'tool.output', call, text: `${t}x`, round },
        ];
        const plain = write(events);
        const fieldByField = write(
          events.map(
            (e) => ({ ...e, provenance: { format: 'hep', line: 1, offset: 0, hints: {} } }) as AgentEvent,
          ),
        );
        expect(plain).toBe(fieldByField);
      }),
    );
  });
});

describe('HEP writer: args_summary bounds', () => {
  test('summary mode: key=<json> joined with ", ", cut at 100 + "..."', () => {
    expect(hepArgsSummary({ a: 1, b: 'two', c: [1, { d: null }] }, 'summary')).toBe(
      'a=1, b="two", c=[1,{"d":null}]',
    );
    const long = hepArgsSummary({ text: 'y'.repeat(200) }, 'summary');
    expect(long).toBe(`text="${'y'.repeat(94)}...`);
    expect(long).toHaveLength(103);
  });

  test('summary mode: a value that cannot be encoded is [unserializable]', () => {
    expect(hepArgsSummary({ n: Number.NaN, b: 10n, ok: true }, 'summary')).toBe(
      'n=[unserializable], b=[unserializable], ok=true',
    );
  });

  test('full mode: compact JSON cut at 4000 + …(+N chars), counting UTF-16 code units', () => {
    const args = { content: 'z'.repeat(5000) };
    const s = hepArgsSummary(args, 'full');
    const json = JSON.stringify(args);
    expect(s).toBe(`${json.slice(0, 4000)}…(+${json.length - 4000} chars)`);
    expect(hepArgsSummary({ a: 1 }, 'full')).toBe('{"a":1}');
  });

  test('a cut may split a surrogate pair; the lone half is escaped as \\udxxx', () => {
    const text = `${'a'.repeat(1999)}😀tail`;
    const out = lines(
      write([
        { type: 'tool.end', call: 'c', name: 't', ok: true, text },
        { type: 'round.end', message: '' },
      ]),
    );
    expect(out.at(-1)).toContain(`${'a'.repeat(1999)}\\ud83d…(+5 chars)`);
  });

  test('bounds are idempotent: already-bounded text is written unchanged', () => {
    const bounded = `${'q'.repeat(2000)}…(+77 chars)`;
    const out = write([
      { type: 'tool.end', call: 'c', name: 't', ok: true, text: bounded },
      { type: 'round.end', message: '' },
    ]);
    expect(out).toContain(`"text":"${bounded}"`);
  });
});

describe('HEP writer: turn ids like the reference HepWriter', () => {
  test('lazy allocation from 1; the terminal frame frees the id', () => {
    const out = write([
      { type: 'run.start' },
      { type: 'message.start', role: 'assistant' },
      { type: 'round.end', message: '' },
      { type: 'message.start', role: 'assistant' },
      { type: 'round.end', message: 'done' },
    ]);
    expect(lines(out).map((l) => JSON.parse(l).turn_id)).toEqual([undefined, 1, 1, 1, 2, 2]);
  });

  test('pre-flight compaction takes the id the following agent_start reuses', () => {
    const out = write([
      { type: 'compaction.start' },
      { type: 'compaction.end', tokensFreed: 5 },
      { type: 'run.start' },
      { type: 'round.end', message: '' },
      { type: 'compaction.start' },
      { type: 'compaction.end', tokensFreed: 1 },
      { type: 'message.start', role: 'assistant' },
    ]);
    expect(lines(out).map((l) => `${JSON.parse(l).type}:${JSON.parse(l).turn_id}`)).toEqual([
      'hep_header:undefined',
      'compaction_start:1',
      'compaction_end:1',
      'agent_start:1',
      'turn_done:1',
      'compaction_start:2',
      'compaction_end:2',
      'message_start:2',
    ]);
  });

  test('agent_start is written once per stream', () => {
    const out = write([{ type: 'run.start' }, { type: 'run.start' }]);
    expect(lines(out).filter((l) => l.includes('agent_start'))).toHaveLength(1);
  });

  test('turnIds "allocate" ignores the rounds events carry', () => {
    const out = write(
      [
        { type: 'message.start', role: 'assistant', round: 7 },
        { type: 'round.end', message: '', round: 7 },
      ],
      { turnIds: 'allocate' },
    );
    expect(
      lines(out)
        .slice(1)
        .map((l) => JSON.parse(l).turn_id),
    ).toEqual([1, 1]);
  });

  test('the header is written first, from options or a session id source', () => {
    const out = hep.stringify([{ type: 'text.delta', text: 'x' }], { idSource: () => 'generated' });
    expect(lines(out)[0]).toBe('{"type":"hep_header","hep":"v1","fah":"agentwire","session":"generated"}');
  });

  test('a round left open at the end is closed with a turn_done, so no tool result is lost', () => {
    const out = write([
      { type: 'tool.start', call: 'c', name: 'x' },
      { type: 'tool.end', call: 'c', name: 'x', ok: true, text: 'r' },
    ]);
    expect(lines(out).at(-1)).toBe(
      '{"type":"turn_done","turn_id":1,"message":"","tool_results":[{"id":"c","name":"x","ok":true,"text":"r"}],"usage":{"input":0,"output":0,"cost":0.0},"stop_reason":"stop"}',
    );
  });
});

describe('HEP writer: loss and refusal', () => {
  test('fields HEP has no place for are reported as loss, once per field', () => {
    const diagnostics: Diagnostic[] = [];
    write(
      [
        { type: 'text.delta', text: 'a', ts: 1, seq: 1 },
        { type: 'text.delta', text: 'b', ts: 2, seq: 2 },
        { type: 'status', status: 'running' },
        { type: 'approval.request', approval: 'a1' },
      ],
      { onDiagnostic: (d) => diagnostics.push(d) },
    );
    expect(diagnostics.map((d) => [d.code, d.field])).toEqual([
      ['loss', 'text.delta.ts'],
      ['loss', 'text.delta.seq'],
      ['loss', 'status'],
      ['loss', 'approval.request'],
    ]);
  });

  test('non-finite numbers, unsafe integers and non-strings are refused with AgentwireError', () => {
    const bad: AgentEvent[] = [
      { type: 'round.end', message: '', usage: { costUsd: Number.NaN } },
      { type: 'round.end', message: '', usage: { input: 2 ** 53 } },
      { type: 'compaction.end', tokensFreed: Number.POSITIVE_INFINITY },
      { type: 'text.delta', text: 42 as unknown as string },
    ];
    for (const event of bad) {
      let error: unknown;
      try {
        write([event]);
      } catch (e) {
        error = e;
      }
      expect(isAgentwireError(error)).toBe(true);
      expect((error as AgentwireError).code).toBe('unencodable');
    }
  });

  test('unknown HEP records are written back as they were', () => {
    const record = { type: 'future_frame', turn_id: 1, z: { b: 1, a: [true] } };
    const out = write([{ type: 'unknown', record, recordType: 'future_frame' }]);
    expect(lines(out).at(-1)).toBe(JSON.stringify(record));
  });
});

describe('HEP round trips of unusual strings', () => {
  test('NUL, lone surrogates, U+2028 and </script> survive decode → encode byte-exact', () => {
    const text = [
      '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}',
      '{"type":"agent_start","turn_id":1}',
      '{"type":"message_delta","turn_id":1,"delta":"\\u0000 \\ud800 \\udfff x\u2028</script>"}',
      '{"type":"turn_done","turn_id":1,"message":"\\ud83d","tool_results":[],"usage":{"input":0,"output":0,"cost":0.0},"stop_reason":"stop"}',
      '',
    ].join('\n');
    const { events, diagnostics } = hep.parse(text);
    expect(diagnostics).toEqual([]);
    expect((events[2] as { text: string }).text).toBe('\u0000 \ud800 \udfff x\u2028</script>');
    expect(hep.stringify(events)).toBe(text);
  });

  test('strict mode throws AgentwireError, only that', () => {
    expect(() =>
      hep.parse('{"type":"hep_header","hep":"v2","fah":"1","session":"s"}\n', { strict: true }),
    ).toThrow(AgentwireError);
  });
});

describe('HEP writer: the tool results it holds for one round are bounded', () => {
  // 2000 characters a result (the text cap): enough calls to pass HEP_MAX_HELD_RESULT_CHARS
  // about two and a half times.
  const calls = Math.ceil((2.5 * HEP_MAX_HELD_RESULT_CHARS) / 2000);
  const run = (round: number | undefined): AgentEvent[] => {
    const events: AgentEvent[] = [{ type: 'session.start', session: 's1' }, { type: 'run.start' }];
    for (let i = 0; i < calls; i++) {
      const at = round === undefined ? {} : { round };
      events.push({ type: 'tool.start', call: `c${i}`, name: 'read', ...at });
      events.push({ type: 'tool.end', call: `c${i}`, name: 'read', ok: true, text: 'x'.repeat(2000), ...at });
    }
    events.push({ type: 'run.end', status: 'completed' });
    return events;
  };

  test('a round the writer made up ends with a turn_done where its results pass the bound', () => {
    const diagnostics: Diagnostic[] = [];
    const out = lines(write(run(undefined), { onDiagnostic: (d) => diagnostics.push(d) }));
    const done = out.filter((l) => l.startsWith('{"type":"turn_done"'));
    expect(done.length).toBe(3);
    for (const l of done) expect(Buffer.byteLength(l)).toBeLessThan(HEP_MAX_HELD_RESULT_CHARS + 20_000);
    expect(done.map((l) => (JSON.parse(l) as { turn_id: number }).turn_id)).toEqual([1, 2, 3]);
    // Every result is written once.
    const results = done.flatMap((l) => (JSON.parse(l) as { tool_results: unknown[] }).tool_results);
    expect(results.length).toBe(calls);
    expect(diagnostics.filter((d) => d.field === 'round')).toHaveLength(1);
    expect(hep.check(`${out.join('\n')}\n`).filter((d) => d.severity === 'error')).toEqual([]);
  });

  test('a round the source numbers is held whole', () => {
    const out = lines(write(run(1)));
    expect(out.filter((l) => l.startsWith('{"type":"turn_done"'))).toHaveLength(1);
  });
});
