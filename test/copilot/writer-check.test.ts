import { describe, expect, test } from 'vitest';
import { type AgentEvent, convert, copilot, type Diagnostic } from '../../src/all';
import { listFixtures, loadFixture } from '../../src/node/fixtures';

// Every fixture of every format (each framing), converted to Copilot, is a stream copilot.check
// finds no error in: one session.start and first (a source's events before its session's start,
// or a second start, made a second one), turns started once and ended once. The warnings it may
// give say what the source itself said: a run it never ended, a tool call it never ended, no
// record written at all, an approval or a question it never resolved.

/**
 * The source's runs ended incomplete, its tool calls with no end, by call id, and its approvals
 * and questions never resolved, by their id.
 */
function unended(events: readonly AgentEvent[]): {
  incomplete: boolean;
  calls: Set<string>;
  asks: Set<string>;
} {
  const calls = new Set<string>();
  const asks = new Set<string>();
  for (const e of events) {
    if (e.type === 'tool.start') calls.add(e.call);
    else if (e.type === 'tool.end') calls.delete(e.call);
    else if (e.type === 'approval.request') asks.add(e.approval);
    else if (e.type === 'approval.resolve') asks.delete(e.approval);
    else if (e.type === 'question') asks.add(e.question);
    else if (e.type === 'question.answer') asks.delete(e.question);
  }
  const incomplete = events.some((e) => e.type === 'run.end' && e.status === 'incomplete');
  return { incomplete, calls, asks };
}

/** Whether a warning says only what the source said too. */
function explained(d: Diagnostic, source: ReturnType<typeof unended>, output: string): boolean {
  if (d.severity !== 'warning' || d.code !== 'order') return false;
  if (/a run ends incomplete/.test(d.message)) return source.incomplete;
  // Nothing of the source writes a Copilot record (Amp's legacy shape, kept as unknown records).
  if (/the stream has no records/.test(d.message)) return output === '';
  const ask = /(?:permission|user input) request "([^"]*)" never completed/.exec(d.message)?.[1];
  if (ask !== undefined) return source.asks.has(ask);
  const call = /tool call "([^"]*)" never completed/.exec(d.message)?.[1];
  return call !== undefined && source.calls.has(call);
}

describe('copilot writer: every fixture converted passes copilot.check', () => {
  const all = listFixtures();

  test('every format has fixtures here', () => {
    expect(new Set(all.map((f) => f.format)).size).toBe(12);
  });

  test.each(all.map((f) => [`${f.format}/${f.name}`, f] as const))('%s → copilot', (_label, info) => {
    const fx = loadFixture(info.format, info.name);
    const { output } = convert(fx.bytes, { from: info.format, to: 'copilot' });
    const source = unended(fx.expected.events);
    expect(copilot.check(output).filter((d) => !explained(d, source, output))).toEqual([]);
  });
});

describe('copilot writer: the session start', () => {
  // Gemini's banner lines and Claude's hook notices come before the session's start and write
  // nothing in Copilot: the source's session start is then the first record, its id kept.
  test.each([
    ['gemini', 'banner-lines'],
    ['claude', 'unknown-records'],
  ] as const)('%s/%s: events before the session start that write nothing leave it first', (format, name) => {
    const fx = loadFixture(format, name);
    const diagnostics: Diagnostic[] = [];
    const { output } = convert(fx.bytes, {
      from: format,
      to: 'copilot',
      onDiagnostic: (d) => diagnostics.push(d),
    });
    const start = (events: readonly AgentEvent[]) => events.find((e) => e.type === 'session.start');
    const source = start(fx.expected.events);
    expect(source?.session).toBeDefined();
    const read = copilot.parse(output).events;
    expect(read.filter((e) => e.type === 'session.start')).toHaveLength(1);
    expect(start(read)?.session).toBe(source?.session);
    expect(diagnostics.filter((d) => d.field === 'session.start')).toEqual([]);
  });

  test('a second session start (a resumed Codex thread) is a loss, not a second session.start', () => {
    const fx = loadFixture('codex', 'resume-usage');
    const diagnostics: Diagnostic[] = [];
    const { output } = convert(fx.bytes, {
      from: 'codex',
      to: 'copilot',
      onDiagnostic: (d) => diagnostics.push(d),
    });
    expect(output.match(/"type":"session\.start"/g)).toHaveLength(1);
    expect(diagnostics.filter((d) => d.code === 'loss').map((d) => d.field)).toContain('session.start');
  });
});
