import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, codecFor, type Diagnostic, type Format } from '../src/all';

// Holds docs/mapping.md true: every cell naming a wire field must carry the value through
// encode → decode unchanged, and every "—" cell must give a `loss` diagnostic when the field is set.

type Cell = { kind: 'mapped' | 'derived' | 'none'; text: string };
type Row = { key: string; cells: Partial<Record<Format, Cell>> };
const FORMATS: Format[] = [
  'hep',
  'highbar',
  'nativeharness',
  'claude',
  'codex',
  'gemini',
  'opencode',
  'cursor',
  'amp',
  'copilot',
  'ag-ui',
  'ai-sdk',
];
// Formats whose table has rows for events and fields the scenario holds only for them.
const CLI: Format[] = ['amp', 'copilot'];
function cliOnly<T>(format: Format, items: T[]): T[] {
  return CLI.includes(format) ? items : [];
}

// A section may hold several tables (one per group of formats, so formats are added by adding a
// table): each table's header names its formats; rows of one key are merged across tables.
function parseTable(section: string): Row[] {
  const doc = readFileSync('docs/mapping.md', 'utf8');
  const start = doc.indexOf(`## ${section}`);
  const end = doc.indexOf('\n## ', start + 3);
  const rows = new Map<string, Row>();
  let columns: Format[] = [];
  for (const line of doc.slice(start, end === -1 ? undefined : end).split('\n')) {
    const header = /^\| field \|(.*)\|$/.exec(line);
    if (header !== null) {
      columns = header[1]!.split('|').map((c) => c.trim() as Format);
      continue;
    }
    const m = /^\| `([^`]+)` \|(.*)\|$/.exec(line);
    if (m === null) continue;
    const cols = m[2]!.split(' | ').map((c) => c.trim());
    let row = rows.get(m[1]!);
    if (row === undefined) rows.set(m[1]!, (row = { key: m[1]!, cells: {} }));
    columns.forEach((f, i) => {
      const text = cols[i] ?? '';
      row.cells[f] = { kind: text === '—' ? 'none' : text.startsWith('~') ? 'derived' : 'mapped', text };
    });
  }
  return [...rows.values()];
}

const T = 1767225600000;
let seq = 0;
const env = (round: number, extra: number) => ({
  session: 'sess-1',
  workspace: 'ws-1',
  run: 'run-1',
  round,
  seq: ++seq,
  ts: T + extra * 500,
  context: { test: 't-1' },
});

function scenario(format: Format): AgentEvent[] {
  seq = 0;
  return [
    {
      type: 'session.start',
      ...env(1, 0),
      producer: 'agent/1.2',
      protocol: format === 'hep' ? 'v1' : '1',
      pid: 4242,
      tools: ['read', 'bash'],
      title: 'Fix it',
      actor: 'user:alice',
      mode: 'build',
      model: 'model-x',
      cwd: '/repo',
    },
    { type: 'session.title', ...env(1, 1), title: 'Fix the build' },
    { type: 'tools.declare', ...env(1, 2), tools: ['read', 'bash', 'edit'] },
    { type: 'run.start', ...env(1, 3), input: 'please fix' },
    ...cliOnly<AgentEvent>(format, [
      { type: 'round.start', ...env(1, 3), model: 'gpt-5' },
      { type: 'user.message', ...env(1, 3), text: 'and the docs?' },
    ]),
    { type: 'message.start', ...env(1, 4), role: 'assistant', ...cliOnly(format, [{ message: 'm-1' }])[0] },
    ...cliOnly<AgentEvent>(format, [
      { type: 'reasoning.delta', ...env(1, 4), text: 'Think </b>', signature: 'sig-1' },
    ]),
    {
      type: 'text.delta',
      ...env(1, 5),
      text: 'Looking </script> ✅',
      ...cliOnly(format, [{ message: 'm-1' }])[0],
    },
    ...cliOnly<AgentEvent>(format, [{ type: 'message.end', ...env(1, 5), message: 'm-1' }]),
    { type: 'status', ...env(1, 6), status: 'running', detail: 'tests' },
    {
      type: 'tool.start',
      ...env(1, 7),
      call: 'call-1',
      name: 'bash',
      args: { command: 'npm test' },
      argsSummary: 'command="npm test"',
      command: 'npm test',
      startedAt: T + 3500,
    },
    { type: 'tool.output', ...env(1, 8), call: 'call-1', stream: 'stderr', text: 'FAIL x\n' },
    {
      type: 'tool.liveness',
      ...env(1, 9),
      call: 'call-1',
      name: 'bash',
      action: 'heartbeat',
      elapsedMs: 30000,
      outputBytes: 7,
      detail: 'still running',
    },
    {
      type: 'tool.end',
      ...env(1, 10),
      call: 'call-1',
      name: 'bash',
      ok: false,
      text: 'exit 1',
      error: 'tests failed',
      exitCode: 1,
      filesChanged: ['a.ts'],
      startedAt: T + 3500,
      endedAt: T + 5000,
    },
    { type: 'tool.start', ...env(1, 11), call: 'call-2', name: 'read', args: { path: 'a.ts' } },
    { type: 'tool.end', ...env(1, 12), call: 'call-2', name: 'read', ok: true, result: { lines: 3 } },
    {
      type: 'approval.request',
      ...env(1, 13),
      approval: 'ap-1',
      call: 'call-1',
      tool: 'bash',
      title: 'Run npm test?',
      effects: ['runs tests'],
      options: [
        { id: 'o1', label: 'Allow', kind: 'allow_once' },
        { id: 'o2', label: 'Deny', kind: 'reject_once' },
      ],
      ...cliOnly(format, [{ args: { command: 'npm test' } }])[0],
    },
    {
      type: 'approval.resolve',
      ...env(1, 14),
      approval: 'ap-1',
      decision: 'allow',
      by: 'user',
      option: 'o1',
    },
    {
      type: 'question',
      ...env(1, 15),
      question: 'q-1',
      questions: [
        { id: 'q1', text: 'Which branch?', options: [{ id: 'a', label: 'main' }], multiple: false },
      ],
      ...cliOnly(format, [{ call: 'call-2' }])[0],
    },
    ...cliOnly<AgentEvent>(format, [
      { type: 'question.answer', ...env(1, 15), question: 'q-1', answers: { q1: 'main' } },
    ]),
    { type: 'child.start', ...env(1, 16), child: 'c-1', name: 'reviewer', task: 'review' },
    { type: 'child.end', ...env(1, 17), child: 'c-1', status: 'completed', result: 'LGTM' },
    { type: 'compaction.start', ...env(1, 18) },
    { type: 'compaction.end', ...env(1, 19), tokensFreed: 1234 },
    ...cliOnly<AgentEvent>(format, [
      { type: 'usage', ...env(1, 19), usage: { input: 10, output: 5, scope: 'call' } },
    ]),
    {
      type: 'round.end',
      ...env(1, 20),
      message: 'Looking </script> ✅',
      stopReason: 'toolUse',
      usage: { input: 10, output: 5, costUsd: 0.25 },
      ...cliOnly(format, [{ model: 'gpt-5' }])[0],
    },
    { type: 'error', ...env(2, 21), message: 'rate limited', fatal: false, code: '429' },
    { type: 'cancel', ...env(3, 22), by: 'user' },
    { type: 'reasoning.delta', ...env(3, 22), text: 'thinking it over', lane: 'child-1' },
    {
      type: 'run.end',
      ...env(3, 23),
      status: 'cancelled',
      reason: 'user_cancelled',
      durationMs: 11500,
      answer: 'Looking </script> ✅',
      input: 'please fix',
      stopReason: 'stop',
      usage: { input: 10, output: 5, costUsd: 0.25 },
      ...cliOnly(format, [{ error: 'stopped' }])[0],
    },
  ];
}

const PROBE: Partial<Record<Format, AgentEvent['type']>> = {
  hep: 'text.delta',
  highbar: 'tool.end',
  nativeharness: 'text.delta',
  codex: 'text.delta',
  claude: 'text.delta',
  opencode: 'text.delta',
  cursor: 'text.delta',
  gemini: 'text.delta',
  amp: 'text.delta',
  copilot: 'text.delta',
  'ag-ui': 'text.delta',
  'ai-sdk': 'text.delta',
};

function roundTrip(format: Format) {
  const codec = codecFor(format)!;
  const original = scenario(format);
  const losses: Diagnostic[] = [];
  const text = codec.stringify(original, { onDiagnostic: (d: Diagnostic) => losses.push(d) } as object);
  const { events, diagnostics } = codec.parse(text);
  // Events of one type in order, without derived text (nativeharness re-delivers a hop's text).
  const ofType = (events: AgentEvent[], type: string) =>
    events.filter((e) => e.type === type && !(e.type === 'text.delta' && e.provenance?.synthetic));
  const first = (events: AgentEvent[], type: string) => ofType(events, type)[0];
  return { original, events, diagnostics, losses, first, ofType, text };
}

describe.each(FORMATS)('docs/mapping.md holds for %s', (format) => {
  const rt = roundTrip(format);

  test('the scenario decodes without errors', () => {
    expect(rt.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  test.each(parseTable('Events').filter((r) => r.cells[format]?.kind === 'mapped'))('$key arrives', (row) => {
    const [type, field] = splitKey(row.key);
    expect(rt.first(rt.events, type), `${type} decoded`).toBeDefined();
    if (field === undefined) return;
    // The first event of the type that sets the field, and the decoded event at the same place.
    const originals = rt.ofType(rt.original, type) as Array<Record<string, unknown>>;
    const at = originals.findIndex((e) => e[field] !== undefined);
    const decoded = rt.ofType(rt.events, type)[at] as Record<string, unknown> | undefined;
    expect(decoded?.[field]).toEqual(originals[at]![field]);
  });

  test.each(parseTable('Envelope').filter((r) => r.cells[format]?.kind === 'mapped'))(
    'envelope $key arrives',
    (row) => {
      const type = PROBE[format]!;
      const decoded = rt.first(rt.events, type) as Record<string, unknown>;
      const original = rt.first(rt.original, type) as Record<string, unknown>;
      expect(decoded[row.key]).toEqual(original[row.key]);
    },
  );

  test('every field it has no place for is reported as a loss', () => {
    const lost = new Set(rt.losses.filter((d) => d.code === 'loss').map((d) => d.field));
    const missing: string[] = [];
    for (const row of parseTable('Events')) {
      if (row.cells[format]?.kind !== 'none') continue;
      const [type, field] = splitKey(row.key);
      // Rows the scenario does not exercise (round.start, kinds, notices) cannot be lost here.
      const exercised = rt.original.some(
        (e) =>
          e.type === type && (field === undefined || (e as Record<string, unknown>)[field] !== undefined),
      );
      if (!exercised) continue;
      const ok = lost.has(type) || (field !== undefined && lost.has(`${type}.${field}`));
      if (!ok) missing.push(row.key);
    }
    for (const row of parseTable('Envelope')) {
      if (row.cells[format]?.kind !== 'none') continue;
      if (![...lost].some((f) => f?.endsWith(`.${row.key}`))) missing.push(`envelope ${row.key}`);
    }
    expect(missing).toEqual([]);
  });
});

function splitKey(key: string): [string, string | undefined] {
  const types = [
    'session.start',
    'session.title',
    'tools.declare',
    'run.start',
    'run.end',
    'round.start',
    'round.end',
    'message.start',
    'text.delta',
    'tool.start',
    'tool.output',
    'tool.liveness',
    'tool.end',
    'approval.request',
    'approval.resolve',
    'question.answer',
    'child.start',
    'child.end',
    'compaction.start',
    'compaction.end',
    'reasoning.delta',
    'message.end',
    'user.message',
    'notice',
  ];
  for (const t of types) {
    if (key === t) return [t, undefined];
    if (key.startsWith(`${t}.`)) return [t, key.slice(t.length + 1)];
  }
  const dot = key.indexOf('.');
  return dot === -1 ? [key, undefined] : [key.slice(0, dot), key.slice(dot + 1)];
}
