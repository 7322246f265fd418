import type { AgentEventOf, Choice, PlanItem, Usage } from '../model';
import { el, put, span } from './dom';
import { duration, head, safe, usageLine, valueText } from './format';

// One row of the viewer's log per thing worth a line: a run, a round's end, a message, a tool
// card… A row keeps its data and can build its element again at any time, so rows scrolled far
// out of view drop their element (the log keeps a bounded number in the page) and come back
// when asked for.

/** Most characters of one text shown before a "show all" button. */
export const TEXT_SHOWN = 20_000;
/** Lines of tool output shown while a card is collapsed. */
export const OUTPUT_LINES = 4;
/** Most characters of a text a row keeps (beyond: counted, not kept). */
export const TEXT_KEPT = 2_000_000;

/** Where a row sits: its lane (a child agent's events) and colour. */
export interface Place {
  lane: string | undefined;
  colour: number;
}

/** A row of the log. */
export abstract class Row {
  /** The row's element while it is in the page. */
  el: HTMLElement | undefined;
  readonly place: Place;

  constructor(place: Place) {
    this.place = place;
  }

  /** Builds (or rebuilds) the element from the row's data. */
  build(): HTMLElement {
    const node = el('div', `row ${this.kind()}`);
    if (this.place.lane !== undefined) {
      node.classList.add('lane', `lane-${this.place.colour}`);
      node.dataset.lane = this.place.lane;
    }
    node.tabIndex = -1;
    this.fill(node);
    return node;
  }

  /** Builds the element again when it is in the page (after the data changed). */
  refresh(): void {
    if (this.el === undefined) return;
    const fresh = this.build();
    const focused = document.activeElement === this.el;
    this.el.replaceWith(fresh);
    this.el = fresh;
    if (focused) fresh.focus({ preventScroll: true });
  }

  /** Toggles what the row can expand (Enter on a focused row). */
  toggle(): void {}

  protected abstract kind(): string;
  protected abstract fill(node: HTMLElement): void;
}

/** Text that grows (assistant text, reasoning): appended to the element as it streams. */
export class TextRow extends Row {
  private text = '';
  private dropped = 0;
  private all = false;
  private body: Text | undefined;
  private shown = 0;
  private readonly label: string;
  /** `message` (assistant text) or `reasoning`. */
  readonly cls: string;

  constructor(place: Place, label: string, cls: string) {
    super(place);
    this.label = label;
    this.cls = cls;
  }

  protected kind(): string {
    return this.cls;
  }

  /** Appends a chunk; the page gets it without rebuilding the row. */
  append(chunk: string): void {
    const room = TEXT_KEPT - this.text.length;
    if (room < chunk.length) this.dropped += chunk.length - Math.max(0, room);
    if (room > 0) this.text += chunk.slice(0, room);
    if (this.el === undefined || this.body === undefined) return;
    const limit = this.all ? TEXT_KEPT : TEXT_SHOWN;
    if (this.shown < limit && this.shown < this.text.length) {
      const more = this.text.slice(this.shown, Math.min(limit, this.text.length));
      this.body.appendData(safe(more));
      this.shown += more.length;
    }
    if (this.text.length > this.shown && this.el.querySelector('.more') === null) this.refresh();
  }

  override toggle(): void {
    if (this.text.length <= TEXT_SHOWN) return;
    this.all = !this.all;
    this.refresh();
  }

  protected fill(node: HTMLElement): void {
    node.append(el('span', 'who', this.label));
    const pre = el('pre', 'text');
    const limit = this.all ? TEXT_KEPT : TEXT_SHOWN;
    const visible = this.text.slice(0, limit);
    this.body = document.createTextNode(safe(visible));
    this.shown = visible.length;
    pre.append(this.body);
    node.append(pre);
    if (this.text.length > TEXT_SHOWN || this.dropped > 0) {
      const hidden = this.text.length - this.shown + this.dropped;
      const button = el('button', 'more', this.all ? 'show less' : `show all (${hidden} more characters)`);
      button.type = 'button';
      button.addEventListener('click', () => this.toggle());
      node.append(button);
    }
  }
}

/** A line of its own: a notice, an error, a user message, a round's end… */
export class LineRow extends Row {
  private readonly cls: string;
  private readonly parts: Array<[string, string | undefined]>;

  constructor(place: Place, cls: string, parts: Array<[string, string | undefined]>) {
    super(place);
    this.cls = cls;
    this.parts = parts;
  }

  protected kind(): string {
    return this.cls;
  }

  protected fill(node: HTMLElement): void {
    for (const [cls, text] of this.parts) put(node, span(cls, text));
  }
}

/** A run: its input, then (when it ends) its status, reason, error, duration and totals. */
export class RunRow extends Row {
  input: string | undefined;
  end: AgentEventOf<'run.end'> | undefined;
  total: Usage | undefined;
  readonly index: number;

  constructor(place: Place, index: number, input: string | undefined) {
    super(place);
    this.index = index;
    this.input = input;
  }

  protected kind(): string {
    return 'run';
  }

  protected fill(node: HTMLElement): void {
    const status = this.end?.status ?? 'running';
    node.classList.add(`status-${status}`);
    put(
      node,
      el('span', 'badge', `run ${this.index}`),
      el('span', 'state', status),
      span('reason', this.end?.reason),
      span('dur', this.end?.durationMs === undefined ? undefined : duration(this.end.durationMs)),
      span('usage', usageLine(this.total)),
    );
    if (this.input !== undefined && this.input !== '') node.append(el('pre', 'input', this.input));
    if (this.end?.error !== undefined) node.append(el('pre', 'error-text', this.end.error));
    if (this.end?.answer !== undefined && this.end.answer !== '') {
      node.append(el('pre', 'answer', this.end.answer));
    }
  }
}

/** A tool call: name, kind, arguments, status, duration, output (collapsed past a few lines). */
export class ToolRow extends Row {
  name: string;
  kind_: string | undefined;
  server: string | undefined;
  /** The arguments in full (a command line, or indented JSON). */
  args = '';
  /** The arguments in one line, for the collapsed card. */
  argsLine = '';
  startedAt: number | undefined;
  endedAt: number | undefined;
  output = '';
  outputDropped = 0;
  state: 'running' | 'ok' | 'failed' | 'denied' = 'running';
  exitCode: number | undefined;
  result = '';
  files: string[] = [];
  liveness: string | undefined;
  expanded = false;
  readonly call: string;

  constructor(place: Place, call: string, name: string) {
    super(place);
    this.call = call;
    this.name = name;
  }

  protected kind(): string {
    return 'tool';
  }

  addOutput(text: string): void {
    const room = TEXT_KEPT - this.output.length;
    if (room < text.length) this.outputDropped += text.length - Math.max(0, room);
    if (room > 0) this.output += text.slice(0, room);
  }

  override toggle(): void {
    this.expanded = !this.expanded;
    this.refresh();
  }

  protected fill(node: HTMLElement): void {
    node.classList.add(`status-${this.state}`);
    const bar = el('button', 'tool-head');
    bar.type = 'button';
    bar.setAttribute('aria-expanded', String(this.expanded));
    bar.addEventListener('click', () => this.toggle());
    const took =
      this.startedAt !== undefined && this.endedAt !== undefined
        ? duration(this.endedAt - this.startedAt)
        : undefined;
    put(
      bar,
      el('span', 'mark', this.expanded ? '▾' : '▸'),
      el('span', 'tool-name', this.name),
      span('tool-kind', this.kind_),
      span('tool-server', this.server),
      el(
        'span',
        'state',
        this.state === 'running' && this.liveness ? `running · ${this.liveness}` : this.state,
      ),
      span('exit', this.exitCode === undefined ? undefined : `exit ${this.exitCode}`),
      span('dur', took),
      span('files', this.files.length === 0 ? undefined : `${this.files.length} file(s) changed`),
    );
    node.append(bar);
    const args = this.expanded ? this.args : this.argsLine;
    if (args !== '') {
      const a = head(args, this.expanded ? 200 : 1, this.expanded ? TEXT_SHOWN : 300);
      node.append(el('pre', 'args', a.cut ? `${a.text} …` : a.text));
    }
    const out = this.output + (this.result === '' ? '' : (this.output === '' ? '' : '\n') + this.result);
    if (out !== '') {
      const o = head(out, this.expanded ? 100_000 : OUTPUT_LINES, this.expanded ? TEXT_SHOWN * 5 : 600);
      node.append(el('pre', 'output', o.text));
      const hidden = out.length - o.text.length + this.outputDropped;
      if (hidden > 0 || this.expanded) {
        const more = el('button', 'more', this.expanded ? 'collapse' : `… ${hidden} more characters`);
        more.type = 'button';
        more.addEventListener('click', () => this.toggle());
        node.append(more);
      }
    }
    if (this.expanded && this.files.length > 0) node.append(el('pre', 'files-list', this.files.join('\n')));
  }
}

function choices(options: Choice[] | undefined): HTMLElement | undefined {
  if (options === undefined || options.length === 0) return undefined;
  const list = el('div', 'choices');
  for (const o of options) list.append(el('span', 'choice', o.kind ? `${o.label} (${o.kind})` : o.label));
  return list;
}

/** An approval card: what the agent asks to do, the choices, and the decision once made. */
export class ApprovalRow extends Row {
  readonly request: AgentEventOf<'approval.request'>;
  decision: AgentEventOf<'approval.resolve'> | undefined;

  constructor(place: Place, request: AgentEventOf<'approval.request'>) {
    super(place);
    this.request = request;
  }

  protected kind(): string {
    return 'approval';
  }

  protected fill(node: HTMLElement): void {
    const r = this.request;
    const d = this.decision;
    put(
      node,
      el('span', 'badge', 'approval'),
      el('span', 'title', r.title || r.tool || r.approval),
      el(
        'span',
        'state',
        d === undefined
          ? 'waiting'
          : `${d.decision}${d.by ? ` by ${d.by}` : ''}${d.option ? ` (${d.option})` : ''}`,
      ),
    );
    if (r.effects !== undefined && r.effects.length > 0)
      node.append(el('pre', 'effects', r.effects.join('\n')));
    if (r.args !== undefined) node.append(el('pre', 'args', valueText(r.args)));
    put(node, choices(r.options));
  }
}

/** Questions to the user, and the answers once given. */
export class QuestionRow extends Row {
  readonly ask: AgentEventOf<'question'>;
  answers: Record<string, unknown> | undefined;

  constructor(place: Place, ask: AgentEventOf<'question'>) {
    super(place);
    this.ask = ask;
  }

  protected kind(): string {
    return 'question';
  }

  protected fill(node: HTMLElement): void {
    node.append(el('span', 'badge', 'question'), el('span', 'state', this.answers ? 'answered' : 'waiting'));
    for (const q of this.ask.questions) {
      const item = el('div', 'q');
      put(
        item,
        el('span', 'q-text', q.text),
        span('multi', q.multiple ? 'several' : undefined),
        choices(q.options),
      );
      const answer = this.answers?.[q.id ?? q.text] ?? this.answers?.[q.text];
      if (answer !== undefined) item.append(el('pre', 'answer', valueText(answer)));
      node.append(item);
    }
    if (this.answers !== undefined && this.ask.questions.length === 0) {
      node.append(el('pre', 'answer', valueText(this.answers)));
    }
  }
}

/** A child agent's lane header: who, what task, how it is doing, its usage. */
export class LaneRow extends Row {
  readonly start: AgentEventOf<'child.start'>;
  detail: string | undefined;
  status: string = 'running';
  result: string | undefined;
  usage: Usage | undefined;

  constructor(place: Place, start: AgentEventOf<'child.start'>) {
    super(place);
    this.start = start;
  }

  protected kind(): string {
    return 'lane-head';
  }

  protected fill(node: HTMLElement): void {
    const s = this.start;
    node.classList.add(`status-${this.status}`);
    put(
      node,
      el('span', 'badge', s.kind === 'shell' ? 'background' : 'subagent'),
      el('span', 'title', s.name ?? s.child),
      span('flag', s.background ? 'background' : undefined),
      el('span', 'state', this.status),
      span('usage', usageLine(this.usage)),
    );
    if (s.task !== undefined && s.task !== '') node.append(el('pre', 'task', s.task));
    if (this.detail !== undefined) node.append(el('pre', 'detail', this.detail));
    if (this.result !== undefined && this.result !== '') node.append(el('pre', 'answer', this.result));
  }
}

const PLAN_MARK: Record<PlanItem['status'], string> = { pending: '☐', in_progress: '◐', completed: '☑' };

/** A plan or to-do list (replaced whole by a later one with the same id). */
export class PlanRow extends Row {
  plan: AgentEventOf<'plan'>;

  constructor(place: Place, plan: AgentEventOf<'plan'>) {
    super(place);
    this.plan = plan;
  }

  protected kind(): string {
    return 'plan';
  }

  protected fill(node: HTMLElement): void {
    node.append(el('span', 'badge', 'plan'));
    if (this.plan.text !== undefined) node.append(el('pre', 'text', this.plan.text));
    const list = el('ul', 'plan-items');
    for (const item of this.plan.items) {
      list.append(el('li', `plan-${item.status}`, `${PLAN_MARK[item.status]} ${item.text}`));
    }
    node.append(list);
  }
}

/** A record the source format has and the model does not know: its type, and the record on demand. */
export class UnknownRow extends Row {
  private readonly type: string;
  private readonly record: unknown;
  private open = false;

  constructor(place: Place, type: string, record: unknown) {
    super(place);
    this.type = type;
    this.record = record;
  }

  protected kind(): string {
    return 'unknown';
  }

  override toggle(): void {
    this.open = !this.open;
    this.refresh();
  }

  protected fill(node: HTMLElement): void {
    const bar = el('button', 'tool-head');
    bar.type = 'button';
    bar.setAttribute('aria-expanded', String(this.open));
    bar.addEventListener('click', () => this.toggle());
    put(
      bar,
      el('span', 'mark', this.open ? '▾' : '▸'),
      el('span', 'badge', 'unknown record'),
      el('span', 'title', this.type),
    );
    node.append(bar);
    if (this.open) node.append(el('pre', 'args', head(valueText(this.record), 200, TEXT_SHOWN).text));
  }
}
