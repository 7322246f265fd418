import { describe, expect, test } from 'vitest';
import { type AgentEvent, codecFor, convert, copilot, type Format, type Usage } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { listFixtures, loadFixture } from '../../src/node/fixtures';

// The Copilot writer and another format's usage, errors and idle notices (issue #19): a reader
// of Copilot sums a run's main-agent assistant.usage into the run's total and ends the run at a
// session.idle, so the writer writes each call's figure once (its final one), keeps the run's
// total, and writes nothing that a reader would take for another run or a failure.

type RunEnd = Extract<AgentEvent, { type: 'run.end' }>;

const FIGURES = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const;

/** The token figures of a usage that say something (zero and absent read the same in Copilot). */
function tokens(u: Usage | undefined): Partial<Record<(typeof FIGURES)[number], number>> {
  const out: Partial<Record<(typeof FIGURES)[number], number>> = {};
  for (const f of FIGURES) if (u?.[f] !== undefined && u[f] !== 0) out[f] = u[f];
  return out;
}

function runEnds(events: readonly AgentEvent[]): RunEnd[] {
  return events.filter((e): e is RunEnd => e.type === 'run.end');
}

function write(events: AgentEvent[]): { text: string; diagnostics: Diagnostic[]; back: AgentEvent[] } {
  const diagnostics: Diagnostic[] = [];
  const text = copilot.stringify(events, { onDiagnostic: (d) => diagnostics.push(d) });
  return { text, diagnostics, back: copilot.parse(text).events };
}

const records = (text: string, type: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> })
    .filter((r) => r.type === type);

const losses = (ds: readonly Diagnostic[]) => ds.filter((d) => d.code === 'loss').map((d) => d.field);

/** What the Claude decoder gives for one API message read with partial messages. */
const partial: AgentEvent[] = [
  { type: 'session.start', session: 's1' },
  { type: 'run.start', input: 'check the lockfile' },
  { type: 'round.start' },
  { type: 'message.start', role: 'assistant', message: 'msg_1' },
  {
    type: 'usage',
    usage: {
      input: 12410,
      output: 2,
      cacheRead: 12000,
      cacheWrite: 400,
      scope: 'call',
      final: false,
      key: 'msg_1',
    },
  },
  { type: 'text.delta', text: 'Lockfile v3: fine.', message: 'msg_1' },
  {
    type: 'usage',
    usage: {
      input: 12410,
      output: 61,
      cacheRead: 12000,
      cacheWrite: 400,
      scope: 'call',
      final: true,
      key: 'msg_1',
    },
  },
  { type: 'message.end', message: 'msg_1' },
  { type: 'round.end', message: 'Lockfile v3: fine.', stopReason: 'end_turn' },
  {
    type: 'run.end',
    status: 'completed',
    usage: { input: 12410, output: 61, cacheRead: 12000, cacheWrite: 400 },
  },
];

describe('copilot writer: usage of another format', () => {
  test('a key is written once, with its final figure: the run total reads back as the source said', () => {
    const { text, back, diagnostics } = write(partial);
    expect(records(text, 'assistant.usage').map((r) => r.data)).toEqual([
      {
        inputTokens: 12410,
        outputTokens: 61,
        cacheReadTokens: 12000,
        cacheWriteTokens: 400,
        apiCallId: 'msg_1',
      },
    ]);
    expect(runEnds(back)[0]!.usage).toMatchObject({
      input: 12410,
      output: 61,
      cacheRead: 12000,
      cacheWrite: 400,
    });
    // The snapshot was replaced by its key's final figure: nothing of it is lost.
    expect(losses(diagnostics)).not.toContain('usage.final');
  });

  test('fixture claude/partial-messages: the run input read back is the source’s, not doubled', () => {
    const fx = loadFixture('claude', 'partial-messages');
    const source = runEnds(fx.expected.events)[0]!.usage!;
    const out = convert(fx.bytes, { from: 'claude', to: 'copilot' }).output;
    const read = runEnds(copilot.parse(out).events)[0]!.usage!;
    expect(source.input).toBeGreaterThan(0);
    expect(read.input).toBe(source.input);
    expect(tokens(read)).toEqual(tokens(source));
  });

  // Claude without partial messages gives only snapshots (final: false) per call and the run's
  // total in its result: the snapshots are written once per key, the total's remainder after.
  test.each(['ask-user', 'tools'])(
    'fixture claude/%s: the run total survives (snapshots once per key, the rest as one more call)',
    (name) => {
      const fx = loadFixture('claude', name);
      const diagnostics: Diagnostic[] = [];
      const out = convert(fx.bytes, {
        from: 'claude',
        to: 'copilot',
        onDiagnostic: (d) => diagnostics.push(d),
      });
      const source = runEnds(fx.expected.events).map((e) => tokens(e.usage));
      expect(runEnds(copilot.parse(out.output).events).map((e) => tokens(e.usage))).toEqual(source);
      const keys = records(out.output, 'assistant.usage').map((r) => r.data.apiCallId);
      const keyed = keys.filter((k) => k !== undefined);
      expect(new Set(keyed).size).toBe(keyed.length);
      // A snapshot may fall short of its call's figure: said.
      expect(losses(diagnostics)).toContain('usage.final');
    },
  );

  // Cursor, Gemini, AG-UI and the AI SDK give a run's usage only in its end: all of it is kept.
  const totalsOnly = listFixtures()
    .filter((f) => !f.name.includes('.') && ['cursor', 'gemini', 'ag-ui', 'ai-sdk'].includes(f.format))
    .map((f) => loadFixture(f.format, f.name))
    .filter(
      (fx) =>
        !fx.expected.events.some(
          (e) => e.type === 'usage' || (e.type === 'round.end' && e.usage !== undefined),
        ) && runEnds(fx.expected.events).some((e) => Object.keys(tokens(e.usage)).length > 0),
    );

  test('there are fixtures with a run total and no per-round usage', () => {
    expect(totalsOnly.map((fx) => fx.format)).toEqual(expect.arrayContaining(['cursor', 'gemini']));
  });

  test.each(totalsOnly.map((fx) => [`${fx.format}/${fx.name}`, fx] as const))(
    'fixture %s: a run total without per-round usage is kept',
    (_label, fx) => {
      const out = convert(fx.bytes, { from: fx.format as Format, to: 'copilot' }).output;
      const read = runEnds(copilot.parse(out).events).map((e) => [e.status, tokens(e.usage)]);
      expect(read).toEqual(runEnds(fx.expected.events).map((e) => [e.status, tokens(e.usage)]));
    },
  );

  // AG-UI and the AI SDK open with the run, their session's start after it.
  test.each([
    ['a run alone', [] as AgentEvent[]],
    ['a run opened before its session', [{ type: 'session.start', session: 's' }] as AgentEvent[]],
  ])('a run total alone (%s) is written as the run’s one call', (_shape, session) => {
    const { text, back, diagnostics } = write([
      { type: 'run.start', input: 'q' },
      ...session,
      { type: 'text.delta', text: 'hi' },
      { type: 'run.end', status: 'completed', usage: { input: 9000, output: 40 } },
    ]);
    expect(records(text, 'assistant.usage')).toHaveLength(1);
    expect(tokens(runEnds(back)[0]!.usage)).toEqual({ input: 9000, output: 40 });
    expect(losses(diagnostics)).not.toContain('run.end.usage');
  });

  // A subagent's calls (Claude: snapshots only) are written before the subagent's end: a reader
  // that gives usage to the message it follows (Claude's writer) still has that message open.
  test.each(['subagent-foreground', 'subagent-background'])(
    'fixture claude/%s → copilot → claude: the subagent’s call figures survive',
    (name) => {
      const fx = loadFixture('claude', name);
      const lanes = (events: readonly AgentEvent[]) =>
        events.flatMap((e) =>
          e.type === 'usage' && e.lane !== undefined ? [[e.usage.key, tokens(e.usage)]] : [],
        );
      const once = convert(fx.bytes, { from: 'claude', to: 'copilot' }).output;
      const viaCopilot = lanes(copilot.parse(once).events);
      expect(viaCopilot.length).toBeGreaterThan(0);
      const back = convert(once, { from: 'copilot', to: 'claude' });
      expect(lanes(codecFor('claude')!.parse(back.output).events)).toEqual(viaCopilot);
    },
  );

  test('a run total below its calls’ sum is a loss (no record takes figures back)', () => {
    const { diagnostics } = write([
      { type: 'run.start', input: 'q' },
      { type: 'round.start' },
      { type: 'usage', usage: { input: 100, output: 10, scope: 'call', key: 'a' } },
      { type: 'round.end', message: '' },
      { type: 'run.end', status: 'completed', usage: { input: 50, output: 10 } },
    ]);
    expect(losses(diagnostics)).toContain('run.end.usage');
  });

  // A loss is reported once per field in a stream: one stream per place a cost can be.
  test.each([
    [
      'a call',
      { type: 'usage', usage: { input: 10, output: 1, costUsd: 0.01, scope: 'call', key: 'a' } },
      {},
    ],
    ['a round', { type: 'round.end', message: '', usage: { input: 10, output: 1, costUsd: 0.01 } }, {}],
    ['a run', { type: 'round.end', message: '' }, { usage: { input: 10, output: 1, costUsd: 0.02 } }],
  ] as const)('the costUsd of %s is a loss: Copilot’s cost is a billing multiplier', (_where, event, end) => {
    const { text, diagnostics } = write([
      { type: 'run.start', input: 'q' },
      { type: 'round.start' },
      event as AgentEvent,
      ...(event.type === 'round.end' ? [] : [{ type: 'round.end', message: '' } as AgentEvent]),
      { type: 'run.end', status: 'completed', ...end } as AgentEvent,
    ]);
    expect(losses(diagnostics)).toContain('usage.costUsd');
    expect(text).not.toContain('"cost"');
  });
});

describe('copilot writer: errors and idle notices of another format', () => {
  test('a non-fatal error is a session.warning: read back non-fatal, the run still completed', () => {
    const { text, back } = write([
      { type: 'run.start', input: 'q' },
      { type: 'round.start' },
      { type: 'error', message: 'retrying after 529', fatal: false, code: 'overloaded' },
      { type: 'text.delta', text: 'done' },
      { type: 'round.end', message: '' },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(records(text, 'session.error')).toEqual([]);
    expect(records(text, 'session.warning').map((r) => r.data)).toEqual([
      { warningType: 'overloaded', message: 'retrying after 529' },
    ]);
    expect(back.filter((e) => e.type === 'error')).toMatchObject([
      { message: 'retrying after 529', fatal: false },
    ]);
    expect(runEnds(back).map((e) => e.status)).toEqual(['completed']);
  });

  test('a non-fatal error the failed run’s end follows at once is the run’s session.error', () => {
    const { text, back } = write([
      { type: 'run.start', input: 'q' },
      { type: 'error', message: 'model not found', fatal: false },
      { type: 'run.end', status: 'failed', error: 'model not found' },
    ]);
    expect(records(text, 'session.error').map((r) => r.data.message)).toEqual(['model not found']);
    expect(records(text, 'session.warning')).toEqual([]);
    expect(runEnds(back)).toMatchObject([{ status: 'failed', error: 'model not found' }]);
  });

  test('fixture hep/provider-error → copilot: the run outcome is the source’s', () => {
    const fx = loadFixture('hep', 'provider-error');
    const out = convert(fx.bytes, { from: 'hep', to: 'copilot' }).output;
    expect(runEnds(copilot.parse(out).events).map((e) => e.status)).toEqual(
      runEnds(fx.expected.events).map((e) => e.status),
    );
  });

  test('a main-agent status idle inside a run is a loss, not a session.idle: the run is not split', () => {
    const { text, back, diagnostics } = write([
      { type: 'run.start', input: 'q' },
      { type: 'round.start' },
      { type: 'status', status: 'idle' },
      { type: 'text.delta', text: 'still going' },
      { type: 'round.end', message: '' },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(records(text, 'session.idle')).toHaveLength(1);
    expect(runEnds(back).map((e) => e.status)).toEqual(['completed']);
    expect(losses(diagnostics)).toContain('status.idle');
  });

  test('fixture claude/compaction → copilot: as many runs as the source, with its outcomes', () => {
    const fx = loadFixture('claude', 'compaction');
    const out = convert(fx.bytes, { from: 'claude', to: 'copilot' }).output;
    expect(runEnds(copilot.parse(out).events).map((e) => e.status)).toEqual(
      runEnds(fx.expected.events).map((e) => e.status),
    );
  });

  test('records outside a run open no turn (a reader would make a run of it)', () => {
    const { text, back } = write([
      { type: 'session.start', session: 's' },
      { type: 'run.start', input: 'q' },
      { type: 'round.start' },
      { type: 'text.delta', text: 'answer' },
      { type: 'round.end', message: '' },
      { type: 'run.end', status: 'completed' },
      { type: 'text.delta', text: 'after the run' },
      { type: 'round.end', message: '' },
    ]);
    expect(records(text, 'assistant.turn_start')).toHaveLength(1);
    expect(records(text, 'assistant.turn_end')).toHaveLength(1);
    expect(runEnds(back).map((e) => e.status)).toEqual(['completed']);
  });

  test('fixture nativeharness/error → copilot: the error after the run makes no run of its own', () => {
    const fx = loadFixture('nativeharness', 'error');
    const out = convert(fx.bytes, { from: 'nativeharness', to: 'copilot' }).output;
    expect(runEnds(codecFor('copilot')!.parse(out).events).map((e) => e.status)).toEqual(
      runEnds(fx.expected.events).map((e) => e.status),
    );
  });
});
