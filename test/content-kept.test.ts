import { describe, expect, test } from 'vitest';
import type { AgentEvent, Diagnostic } from '../src/all';
import { convert } from '../src/all';
import { loadFixture } from '../src/node/fixtures';
import { FIXTURES, FORMATS, readBack, T, writeEvents } from './write-through';

// What a person reads of a run is never dropped or invented by a conversion without a `loss`
// saying so: for every fixture and every target format, what the person asked (each run's
// message, wherever the format puts it), the main agent's text and reasoning
// read back from the output are the input's, character for character, and its tool calls are
// the input's in number and outcome, and so are the subagents it started. Allowed, because the formats require them: a run's `answer`
// written as its text by a format that has no other place for it (Codex's agent_message), and a
// call the input left unanswered answered as interrupted (`ok: false`) by a format that answers
// every call (Claude Code, nativeharness).

interface Content {
  /** What the person asked, each distinct message once (a run's input, or a user message). */
  asked: string;
  text: string;
  reasoning: string;
  answers: string;
  starts: number;
  ok: number;
  failed: number;
  /** The subagents the main agent started, and how each ended, sorted. */
  children: string;
}

function content(events: readonly AgentEvent[]): Content {
  const asked = new Set<string>();
  const children: string[] = [];
  const c: Content = {
    asked: '',
    text: '',
    reasoning: '',
    answers: '',
    starts: 0,
    ok: 0,
    failed: 0,
    children: '',
  };
  for (const e of events) {
    if (e.lane !== undefined) continue;
    // highbar knows a run's message only at its end (its turn record); Claude Code echoes it as
    // a user line.
    if ((e.type === 'run.start' || e.type === 'run.end') && e.input) asked.add(e.input);
    if (e.type === 'run.end' && e.answer !== undefined) c.answers += e.answer;
    if (e.type === 'user.message' && e.text !== '') asked.add(e.text);
    else if (e.type === 'text.delta') c.text += e.text;
    else if (e.type === 'reasoning.delta') c.reasoning += e.text;
    else if (e.type === 'tool.start') c.starts++;
    else if (e.type === 'tool.end') {
      if (e.ok) c.ok++;
      else c.failed++;
    } else if (e.type === 'child.start') children.push('start');
    else if (e.type === 'child.end') children.push(`end ${e.status}`);
  }
  c.asked = [...asked].sort().join('\n');
  c.children = children.sort().join(', ');
  return c;
}

function lost(diagnostics: readonly Diagnostic[], ...fields: string[]): boolean {
  return diagnostics.some(
    (d) => d.code === 'loss' && (fields.includes(d.field ?? '') || (d.field ?? '').endsWith('.lane')),
  );
}

function expectKept(want: Content, got: Content, diagnostics: readonly Diagnostic[]): void {
  if (
    !lost(diagnostics, 'run.start', 'run.start.input', 'run.end.input', 'user.message', 'user.message.text')
  )
    expect(got.asked, 'what was asked').toBe(want.asked);
  if (!lost(diagnostics, 'text.delta', 'text.delta.text')) {
    // The answer as the run's text, where the input had none.
    const text = want.text === '' && got.text === want.answers ? '' : got.text;
    expect(text, 'text').toBe(want.text);
  }
  if (!lost(diagnostics, 'reasoning.delta', 'reasoning.delta.text'))
    expect(got.reasoning, 'reasoning').toBe(want.reasoning);
  if (!lost(diagnostics, 'tool.start', 'tool.end', 'tool.end.ok')) {
    expect(got.starts, 'calls').toBe(want.starts);
    expect(got.ok, 'calls that succeeded').toBe(want.ok);
    const unanswered = want.starts - want.ok - want.failed;
    expect(got.failed, 'calls that failed').toBeGreaterThanOrEqual(want.failed);
    expect(got.failed, 'calls that failed').toBeLessThanOrEqual(want.failed + Math.max(0, unanswered));
  }
  if (!lost(diagnostics, 'child.start', 'child.end', 'child.end.status'))
    expect(got.children, 'subagents').toBe(want.children);
}

describe.each(FIXTURES.map((f) => [`${f.format}/${f.name}`, f] as const))('content of %s', (_label, info) => {
  const fx = loadFixture(info.format, info.name);
  const want = content(fx.expected.events);
  test.each(FORMATS.filter((f) => f !== fx.format))('→ %s: kept, or its loss reported', (to) => {
    const r = convert(fx.bytes, { from: fx.format, to, clock: () => T });
    expectKept(want, content(readBack(to, r.output)), r.diagnostics);
  });
});

const session = { type: 'session.start', session: 's1', ts: T } as AgentEvent;
const start = { type: 'run.start', input: 'go', ts: T + 1 } as AgentEvent;
const end = (status = 'completed'): AgentEvent => ({ type: 'run.end', status, ts: T + 9 }) as AgentEvent;
const say = (text: string, message = 'm1'): AgentEvent[] => [
  { type: 'message.start', role: 'assistant', message, ts: T + 2 },
  { type: 'text.delta', message, text, ts: T + 2 },
  { type: 'message.end', message, ts: T + 3 },
];
const callStart = (call: string, name = 'Bash'): AgentEvent =>
  ({ type: 'tool.start', call, name, args: { command: `echo ${call}` }, ts: T + 4 }) as AgentEvent;
const callEnd = (call: string, ok: boolean, name = 'Bash'): AgentEvent =>
  ({ type: 'tool.end', call, name, ok, result: ok ? 'done' : 'exit 1', ts: T + 5 }) as AgentEvent;

const task = (call: string): AgentEvent =>
  ({ type: 'tool.start', call, name: 'Task', args: { prompt: 'look' }, ts: T + 2 }) as AgentEvent;
const child = (id: string, call: string): AgentEvent =>
  ({ type: 'child.start', child: id, call, name: 'helper', task: 'look', ts: T + 3 }) as AgentEvent;
const childEnd = (id: string, status = 'completed'): AgentEvent =>
  ({ type: 'child.end', child: id, status, result: 'found', ts: T + 5 }) as AgentEvent;
const inLane = (lane: string): AgentEvent[] =>
  [
    { type: 'round.start', lane, ts: T + 4 },
    { type: 'text.delta', lane, text: 'looking', ts: T + 4 },
    { type: 'round.end', lane, message: 'looking', ts: T + 4 },
  ] as AgentEvent[];

const CASES: Record<string, AgentEvent[]> = {
  'text in many pieces, non-ASCII and escapes': [
    session,
    start,
    { type: 'message.start', role: 'assistant', message: 'm1', ts: T + 2 },
    ...['Hé', 'llo, ', '世界 ', '😀', ' "quoted"\n', 'tab\there', ' \\ back', '\u2028sep'].map(
      (text) => ({ type: 'text.delta', message: 'm1', text, ts: T + 2 }) as AgentEvent,
    ),
    { type: 'message.end', message: 'm1', ts: T + 3 },
    end(),
  ],
  'reasoning, then text': [
    session,
    start,
    { type: 'reasoning.delta', text: 'Let me think: ', ts: T + 2 },
    { type: 'reasoning.delta', text: 'two steps.', ts: T + 2 },
    ...say('Done.'),
    end(),
  ] as AgentEvent[],
  'a call that fails, then one that succeeds': [
    session,
    start,
    callStart('c1'),
    callEnd('c1', false),
    callStart('c2'),
    callEnd('c2', true),
    ...say('ok'),
    end(),
  ],
  'two calls in parallel': [
    session,
    start,
    callStart('c1'),
    callStart('c2', 'Read'),
    callEnd('c2', true, 'Read'),
    callEnd('c1', true),
    ...say('both'),
    end(),
  ],
  'a call never answered, the run cut off': [
    session,
    start,
    ...say('trying'),
    callStart('c1'),
    end('incomplete'),
  ],
  'a subagent with lines of its own': [
    session,
    start,
    task('t1'),
    child('t1', 't1'),
    ...inLane('t1'),
    childEnd('t1'),
    callEnd('t1', true, 'Task'),
    end(),
  ],
  'a subagent without lines of its own': [
    session,
    start,
    task('t1'),
    child('t1', 't1'),
    childEnd('t1'),
    callEnd('t1', true, 'Task'),
    end(),
  ],
  'a subagent that failed': [
    session,
    start,
    task('t1'),
    child('t1', 't1'),
    ...inLane('t1'),
    childEnd('t1', 'failed'),
    callEnd('t1', false, 'Task'),
    end(),
  ],
  'a subagent that failed, its call answered as a success': [
    session,
    start,
    task('t1'),
    child('t1', 't1'),
    ...inLane('t1'),
    childEnd('t1', 'failed'),
    callEnd('t1', true, 'Task'),
    end(),
  ],
  'a background subagent: its call answered before its lines': [
    session,
    start,
    task('t1'),
    child('t1', 't1'),
    callEnd('t1', true, 'Task'),
    ...inLane('t1'),
    childEnd('t1'),
    end(),
  ],
  'a subagent named apart from its call, and one it started': [
    session,
    start,
    task('t1'),
    child('kid', 't1'),
    ...inLane('kid'),
    { type: 'child.start', child: 'grandkid', lane: 'kid', name: 'helper', ts: T + 4 } as AgentEvent,
    { type: 'child.end', child: 'grandkid', lane: 'kid', status: 'completed', ts: T + 4 } as AgentEvent,
    childEnd('kid'),
    callEnd('t1', true, 'Task'),
    end(),
  ],
  'text over two messages of one run': [session, start, ...say('first. '), ...say('second.', 'm2'), end()],
};

describe.each(Object.entries(CASES))('content of %s', (_name, events) => {
  const want = content(events);
  test.each(FORMATS)('→ %s: kept, or its loss reported', (to) => {
    const { output, diagnostics } = writeEvents(to, events);
    expectKept(want, content(readBack(to, output)), diagnostics);
  });
});
