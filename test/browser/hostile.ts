import { nativeharness } from '../../src/formats/nativeharness';
import type { AgentEvent } from '../../src/model';

// A stream whose every text field is hostile: markup that would run if it were ever parsed as
// HTML, URLs that would run if made links, terminal escapes, bidi overrides, and a 1 MB line.
// Written as nativeharness with agentwire's extension so every canonical event type gets through.

/** Markup and text that must stay inert. Each sets `window.__pwned` if it ever runs. */
export const PAYLOADS = [
  '<script>window.__pwned = "script"</script>',
  '<img src=x onerror="window.__pwned = \'img\'">',
  '<svg onload="window.__pwned = \'svg\'"></svg>',
  '<iframe srcdoc="<script>parent.__pwned = 1</script>"></iframe>',
  '<a href="javascript:window.__pwned = \'link\'">click</a> javascript:window.__pwned=1',
  '<style>body { display: none }</style>',
  '\u001b[31mred\u001b[0m \u001b]8;;http://evil.example\u0007osc link\u001b]8;;\u0007 \u0007bell',
  'invoice\u202egnp.exe \u2066isolate\u2069 line\u2028separator',
  'https://evil.example/?q=<b>bold</b> &amp; &lt;entity&gt;',
];

/** One hostile string (all payloads on one line). */
export const HOSTILE = PAYLOADS.join(' ');

/** The events of the hostile stream, with a 1 MB text line and a 1 MB tool output. */
export function hostileEvents(): AgentEvent[] {
  const h = HOSTILE;
  const big = `${h} ${'<b>x</b>'.repeat(125_000)}`;
  const ts = 1_767_225_600_000;
  const events: AgentEvent[] = [
    { type: 'session.start', title: h, producer: h, model: h, cwd: h, mode: h, actor: h },
    { type: 'run.start', input: h },
    { type: 'round.start', round: 1, model: h },
    { type: 'reasoning.delta', round: 1, text: h },
    { type: 'text.delta', round: 1, text: h },
    { type: 'text.delta', round: 1, text: big },
    { type: 'user.message', round: 1, text: h },
    { type: 'status', round: 1, status: h, detail: h },
    {
      type: 'tool.start',
      round: 1,
      call: 'c1',
      name: h,
      kind: 'execute',
      server: h,
      args: { [h]: h },
      command: h,
      startedAt: ts,
    },
    { type: 'tool.output', round: 1, call: 'c1', text: `${h}\n`.repeat(8) },
    { type: 'tool.output', round: 1, call: 'c1', text: big },
    {
      type: 'tool.end',
      round: 1,
      call: 'c1',
      name: h,
      ok: false,
      error: h,
      text: h,
      filesChanged: [h],
      endedAt: ts + 1500,
    },
    {
      type: 'approval.request',
      round: 1,
      approval: 'a1',
      tool: h,
      title: h,
      effects: [h],
      options: [{ id: 'allow', label: h, kind: 'allow_once' }],
    },
    { type: 'approval.resolve', round: 1, approval: 'a1', decision: h, by: h },
    {
      type: 'question',
      round: 1,
      question: 'q1',
      questions: [{ id: 'x', text: h, options: [{ id: 'o', label: h }] }],
    },
    { type: 'question.answer', round: 1, question: 'q1', answers: { x: h } },
    { type: 'plan', round: 1, items: [{ text: h, status: 'in_progress' }], text: h },
    { type: 'file.change', round: 1, changes: [{ path: h, kind: h }], status: h },
    { type: 'notice', round: 1, kind: h, message: h, severity: 'warning' },
    { type: 'child.start', round: 1, child: 'k1', name: h, task: h, kind: 'agent' },
    { type: 'text.delta', round: 1, lane: 'k1', text: h },
    { type: 'child.progress', round: 1, child: 'k1', detail: h },
    { type: 'child.end', round: 1, child: 'k1', status: 'failed', result: h },
    { type: 'error', round: 1, message: h, fatal: false, code: h },
    { type: 'compaction.start', round: 1, trigger: h },
    { type: 'compaction.end', round: 1, tokensFreed: 10 },
    {
      type: 'round.end',
      round: 1,
      message: h,
      stopReason: h,
      usage: { input: 10, output: 5, costUsd: 0.01 },
    },
    { type: 'session.title', title: h },
    { type: 'cancel', by: h },
    { type: 'run.end', status: 'failed', reason: h, error: h, answer: h, usage: { input: 10, output: 5 } },
  ];
  return events;
}

/** The hostile stream as nativeharness SSE (with agentwire's extension). */
export function hostileStream(): string {
  return nativeharness.stringify(hostileEvents(), {
    framing: 'sse',
    workspace: 'local',
    session: 'live',
    clock: () => 1_767_225_600_000,
    idSource: () => 'hostile',
    conform: true,
    extensions: true,
  });
}
