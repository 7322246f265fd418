import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, claude } from '../../src/all';
import { withoutRaw } from '../agent-suite';
import { FUZZ_RUNS } from '../runs';

// `system/session_state_changed` (the SDK's SDKSessionStateChangedMessage: `state` idle |
// running | requires_action) is read as a `status` of its state. It was an `unknown` event: a
// supervisor saw no `requires_action`. Its line comes back byte for byte as written, from a JSON
// copy of the events, and rebuilt from the model without the line (the `state` hint names the
// record: a `system/status` would read back the same but is not the line Claude wrote).

const SESSION = '0b6f3c1e-cccc-4a4a-9c9c-00000000000c';
const stateLine = (state: unknown, uuid: string, session = SESSION): string =>
  JSON.stringify({ type: 'system', subtype: 'session_state_changed', state, uuid, session_id: session });

// Writes `events` with the uuids of `lines` as the ids the writer draws, in order.
function rebuilt(events: AgentEvent[], lines: string[]): string {
  const uuids = lines.map((l) => (JSON.parse(l) as { uuid: string }).uuid);
  return claude.stringify(withoutRaw(events), { idSource: () => uuids.shift() ?? 'none' });
}

describe('Claude: system/session_state_changed is a status of its state', () => {
  test('read as status{status: state}; a state that is not a string stays unknown', () => {
    const text = [
      `{"type":"system","subtype":"init","cwd":"/r","session_id":"${SESSION}","tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"u1"}`,
      stateLine('running', 'u2'),
      stateLine('requires_action', 'u3'),
      stateLine(7, 'u4'),
      stateLine('idle', 'u5'),
      `{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"result":"ok","session_id":"${SESSION}","uuid":"u6"}`,
      '',
    ].join('\n');
    const { events, diagnostics } = claude.parse(text);
    expect(diagnostics).toEqual([]);
    expect(events.filter((e) => e.type === 'status' || e.type === 'unknown')).toMatchObject([
      {
        type: 'status',
        status: 'running',
        session: SESSION,
        provenance: { line: 2, hints: { state: true } },
      },
      { type: 'status', status: 'requires_action', provenance: { line: 3, hints: { state: true } } },
      { type: 'unknown', recordType: 'system/session_state_changed', provenance: { line: 4 } },
      { type: 'status', status: 'idle', provenance: { line: 5, hints: { state: true } } },
    ]);
    expect(claude.stringify(events)).toBe(text);
    expect(claude.stringify(JSON.parse(JSON.stringify(events)) as AgentEvent[])).toBe(text);
  });

  test('rebuilt without its line: the same record, byte for byte (not a system/status)', () => {
    const lines = [
      stateLine('running', 'u1'),
      stateLine('requires_action', 'u2', 'other'),
      stateLine('idle', 'u3'),
    ];
    const text = `${lines.join('\n')}\n`;
    const { events } = claude.parse(text);
    expect(rebuilt(events, lines)).toBe(text);
    // An edited state is the record's new state.
    const edited = events.map((e) => (e.type === 'status' ? { ...e, status: 'requires_action' } : e));
    expect(rebuilt(edited, lines)).toBe(
      `${lines.map((l) => l.replace(/"(running|idle)"/, '"requires_action"')).join('\n')}\n`,
    );
  });

  test("another format's status is still system/status (idle as null); a foreign state hint is not read", () => {
    let n = 0;
    const out = claude.stringify(
      [
        { type: 'status', status: 'requires_action', session: 's' },
        { type: 'status', status: 'idle', session: 's' },
        {
          type: 'status',
          status: 'running',
          session: 's',
          provenance: { format: 'codex', line: 1, offset: 0, hints: { state: true } },
        },
      ],
      { idSource: () => `id-${++n}` },
    );
    expect(out).toBe(
      [
        '{"type":"system","subtype":"status","status":"requires_action","session_id":"s","uuid":"id-1"}',
        '{"type":"system","subtype":"status","status":null,"session_id":"s","uuid":"id-2"}',
        '{"type":"system","subtype":"status","status":"running","session_id":"s","uuid":"id-3"}',
        '',
      ].join('\n'),
    );
  });

  test('any state lines: kept, from a JSON copy and rebuilt, the same bytes', () => {
    const state = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('idle', 'running', 'requires_action') },
      {
        weight: 1,
        arbitrary: fc.string({ unit: fc.constantFrom('"', '\\', '\n', 'é', '\u2028', 'a'), maxLength: 6 }),
      },
    );
    // Each line its own uuid (a line equal to the one before it is one record read twice).
    const line = fc.tuple(state, fc.constantFrom('u', 'é"\\'), fc.constantFrom(SESSION, 'other', 'é'));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), (drawn) => {
        const lines = drawn.map(([s, u, session], i) => stateLine(s, `${u}${i}`, session));
        const text = `${lines.join('\n')}\n`;
        const { events, diagnostics } = claude.parse(text);
        expect(diagnostics).toEqual([]);
        expect(events.map((e) => e.type)).toEqual(lines.map(() => 'status'));
        expect(claude.stringify(events)).toBe(text);
        expect(claude.stringify(JSON.parse(JSON.stringify(events)) as AgentEvent[])).toBe(text);
        expect(rebuilt(events, lines)).toBe(text);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});
