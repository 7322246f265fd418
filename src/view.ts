import type { AgentEvent, Usage } from './model';
import { addUsage } from './usage';

/** Options of {@link TimelineRenderer}. */
export interface TimelineOptions {
  /** ANSI colour (the CLI turns it on for a TTY only). Default false. */
  color?: boolean;
}

// C0 controls (but TAB and LF), DEL and C1 controls: shown, never executed by the terminal.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Makes model text safe to print to a terminal: control characters (ESC, CR, BEL, C1, bidi
 * overrides, …) become visible escapes like `\x1b`, so a model cannot move the cursor, recolour
 * the screen or hide text. The text is otherwise unchanged: it is text, not markup.
 */
export function neutralizeControls(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

function formatUsage(u: Usage): string {
  const parts: string[] = [];
  if (u.input !== undefined) parts.push(`${u.input} in`);
  if (u.output !== undefined) parts.push(`${u.output} out`);
  // Totals are exact decimal sums (addUsage): printed as they are, never rounded for show.
  if (u.costUsd !== undefined) parts.push(`$${u.costUsd}`);
  return parts.join(' / ');
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

function oneLine(text: string, max = 100): string {
  const flat = neutralizeControls(text.trim().replace(/\s*\n\s*/g, ' ⏎ '));
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

// A session may declare dozens of tools (Claude Code lists every MCP tool: 60 and more); the
// timeline names as many as fit one line and counts the rest.
function toolList(tools: readonly string[], max = 100): string {
  let text = '';
  let shown = 0;
  for (const tool of tools) {
    const name = neutralizeControls(tool);
    const next = shown === 0 ? name : `${text}, ${name}`;
    if (shown > 0 && next.length > max) break;
    text = next;
    shown++;
  }
  return shown < tools.length ? `${text}, … (${tools.length - shown} more)` : text;
}

const PLAN_MARK = { pending: '☐', in_progress: '◐', completed: '☑' } as const;

/**
 * Renders canonical events as a human timeline — runs, rounds, tool cards with status and
 * duration, approvals, questions, children, errors, usage — one event at a time, so a growing
 * stream can be followed. Model text is printed as text with control sequences neutralised.
 */
export class TimelineRenderer {
  private readonly color: boolean;
  private inText = false;
  private round: number | undefined;
  private readonly started = new Map<string, { name: string; at: number | undefined }>();
  private readonly runUsage: { input: number; output: number; costUsd: number } = {
    input: 0,
    output: 0,
    costUsd: 0,
  };
  private sawRoundUsage = false;

  /** Creates a renderer. */
  constructor(options: TimelineOptions = {}) {
    this.color = options.color ?? false;
  }

  private paint(code: string, text: string): string {
    return this.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  }

  private line(indent: number, text: string): string {
    const prefix = this.inText ? '\n' : '';
    this.inText = false;
    return `${prefix}${'  '.repeat(indent)}${text}\n`;
  }

  private roundHeader(event: AgentEvent): string {
    if (event.round === undefined || event.round === this.round) return '';
    this.round = event.round;
    return this.line(1, this.paint('2', `round ${event.round}`));
  }

  /** The text for one event (possibly empty). */
  render(event: AgentEvent): string {
    const head =
      event.type === 'session.start' || event.type === 'run.end' || event.type === 'run.start'
        ? ''
        : this.roundHeader(event);
    return head + this.body(event);
  }

  private body(e: AgentEvent): string {
    switch (e.type) {
      case 'session.start': {
        const bits = [
          e.session && `session ${neutralizeControls(e.session)}`,
          e.producer && `(${neutralizeControls(e.producer)})`,
        ];
        if (e.title) bits.push(`“${oneLine(e.title)}”`);
        if (e.tools?.length) bits.push(`tools: ${toolList(e.tools)}`);
        return this.line(0, this.paint('1', bits.filter(Boolean).join(' ') || 'session'));
      }
      case 'session.title':
        return this.line(0, `title: ${oneLine(e.title)}`);
      case 'tools.declare':
        return this.line(0, this.paint('2', `tools: ${toolList(e.tools)}`));
      case 'run.start':
        this.round = undefined;
        if (e.round !== undefined) {
          this.round = e.round;
          return `${this.line(0, this.paint('1;36', `▶ run${e.input ? `: ${oneLine(e.input)}` : ''}`))}${this.line(1, this.paint('2', `round ${e.round}`))}`;
        }
        return this.line(0, this.paint('1;36', `▶ run${e.input ? `: ${oneLine(e.input)}` : ''}`));
      case 'run.end': {
        const colour = e.status === 'completed' ? '1;32' : e.status === 'failed' ? '1;31' : '1;33';
        const usage = e.usage ?? (this.sawRoundUsage ? this.runUsage : undefined);
        let text = this.line(
          0,
          this.paint(colour, `■ run ${e.status}${usage ? ` — total ${formatUsage(usage)}` : ''}`),
        );
        if (e.answer) text += this.line(1, `answer: ${oneLine(e.answer, 200)}`);
        this.runUsage.input = 0;
        this.runUsage.output = 0;
        this.runUsage.costUsd = 0;
        this.sawRoundUsage = false;
        return text;
      }
      case 'round.start':
        return '';
      case 'round.end': {
        if (e.usage) {
          this.sawRoundUsage = true;
          addUsage(this.runUsage, e.usage);
        }
        const bits = [
          e.stopReason && `stop: ${neutralizeControls(e.stopReason)}`,
          e.usage && formatUsage(e.usage),
        ];
        return this.line(2, this.paint('2', `└ ${bits.filter(Boolean).join(' · ') || 'round done'}`));
      }
      case 'message.start':
      case 'message.end':
      case 'tool.args.delta':
        return '';
      case 'reasoning.delta': {
        if (e.text === '') return '';
        return this.line(2, this.paint('2;3', `thinking: ${oneLine(e.text, 200)}`));
      }
      case 'user.message':
        return this.line(1, `${this.paint('1', e.synthetic ? 'harness:' : 'user:')} ${oneLine(e.text, 200)}`);
      case 'text.delta': {
        const start = this.inText ? '' : `    ${this.paint('1', 'assistant:')} `;
        this.inText = true;
        return start + neutralizeControls(e.text).replace(/\n/g, '\n      ');
      }
      case 'status':
        return this.line(
          2,
          this.paint('2', `· ${neutralizeControls(e.status)}${e.detail ? ` — ${oneLine(e.detail)}` : ''}`),
        );
      case 'tool.start': {
        this.started.set(e.call, { name: e.name, at: e.startedAt ?? e.ts });
        const args = e.command ?? e.argsSummary ?? (e.args === undefined ? '' : JSON.stringify(e.args));
        return this.line(2, `${this.paint('1;34', `⚙ ${neutralizeControls(e.name)}`)} ${oneLine(args)}`);
      }
      case 'tool.output':
        return this.line(3, this.paint('2', `│ ${oneLine(e.text)}`));
      case 'tool.liveness':
        return this.line(
          3,
          this.paint(
            '2',
            `⏱ ${neutralizeControls(e.action)} after ${formatDuration(e.elapsedMs)}${e.detail ? ` — ${oneLine(e.detail)}` : ''}`,
          ),
        );
      case 'tool.end': {
        const start = this.started.get(e.call);
        this.started.delete(e.call);
        const name = e.name ?? start?.name ?? e.call;
        const begin = e.startedAt ?? start?.at;
        const end = e.endedAt ?? e.ts;
        const bits = [
          e.ok
            ? this.paint('32', `✓ ${neutralizeControls(name)}`)
            : this.paint('31', `✗ ${neutralizeControls(name)} failed`),
        ];
        if (e.exitCode !== undefined) bits.push(`exit ${e.exitCode}`);
        if (begin !== undefined && end !== undefined && end >= begin) bits.push(formatDuration(end - begin));
        if (e.filesChanged?.length) bits.push(`${e.filesChanged.length} file(s) changed`);
        let text = this.line(3, bits.join('  '));
        const detail =
          typeof e.error === 'string' && e.error !== ''
            ? e.error
            : e.text !== undefined && e.text !== ''
              ? e.text
              : e.error !== undefined && e.error !== null && e.error !== false && e.error !== ''
                ? JSON.stringify(e.error)
                : e.result !== undefined
                  ? JSON.stringify(e.result)
                  : '';
        if (detail) text += this.line(4, this.paint('2', oneLine(detail)));
        return text;
      }
      case 'approval.request':
        return this.line(
          2,
          `${this.paint('1;33', '? approval')} ${oneLine(e.title ?? e.tool ?? e.approval)}${e.options?.length ? ` [${e.options.map((o) => neutralizeControls(o.label)).join(' / ')}]` : ''}`,
        );
      case 'approval.resolve':
        return this.line(
          2,
          this.paint(
            '33',
            `→ ${neutralizeControls(e.decision)}${e.by ? ` by ${neutralizeControls(e.by)}` : ''}`,
          ),
        );
      case 'question':
        return e.questions
          .map((q) =>
            this.line(
              2,
              `${this.paint('1;33', '? ask')} ${oneLine(q.text)}${q.options?.length ? ` [${q.options.map((o) => neutralizeControls(o.label)).join(' / ')}]` : ''}`,
            ),
          )
          .join('');
      case 'child.start':
        return this.line(
          2,
          this.paint(
            '35',
            `↳ child ${neutralizeControls(e.name ?? e.child)}${e.task ? `: ${oneLine(e.task)}` : ''}`,
          ),
        );
      case 'child.progress':
        return e.detail ? this.line(3, this.paint('35', `│ ${oneLine(e.detail)}`)) : '';
      case 'plan':
        return (
          this.line(2, this.paint('1', 'plan')) +
          e.items.map((i) => this.line(3, `${PLAN_MARK[i.status]} ${oneLine(i.text)}`)).join('')
        );
      case 'file.change':
        return e.changes
          .map((c) => this.line(3, this.paint('2', `✎ ${neutralizeControls(c.kind)} ${oneLine(c.path)}`)))
          .join('');
      case 'notice':
        return this.line(
          2,
          this.paint(
            e.severity === 'warning' ? '33' : '2',
            `i ${neutralizeControls(e.kind)}${e.message ? `: ${oneLine(e.message, 200)}` : ''}`,
          ),
        );
      case 'usage':
        return '';
      case 'question.answer':
        return this.line(2, this.paint('33', `→ answered ${oneLine(JSON.stringify(e.answers))}`));
      case 'child.end':
        return this.line(
          2,
          this.paint(
            '35',
            `↲ child ${neutralizeControls(e.child)} ${e.status}${e.result ? `: ${oneLine(e.result)}` : ''}`,
          ),
        );
      case 'compaction.start':
        return this.line(2, this.paint('2', '⇣ compacting history'));
      case 'compaction.end':
        return this.line(
          2,
          this.paint(
            '2',
            `⇡ history compacted${e.tokensFreed !== undefined ? ` (${e.tokensFreed} tokens freed)` : ''}`,
          ),
        );
      case 'error':
        return this.line(
          2,
          this.paint('1;31', `${e.fatal ? '✗ fatal error' : '! error'}: ${oneLine(e.message, 200)}`),
        );
      case 'cancel':
        return this.line(
          2,
          this.paint('1;33', `⊘ cancelled${e.by ? ` by ${neutralizeControls(e.by)}` : ''}`),
        );
      case 'unknown':
        return this.line(2, this.paint('2', `(unknown ${neutralizeControls(e.recordType ?? 'record')})`));
    }
  }

  /** Finishes an unterminated text line. */
  end(): string {
    if (!this.inText) return '';
    this.inText = false;
    return '\n';
  }
}
