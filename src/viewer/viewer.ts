import type { AgentEvent, AgentEventOf, Usage } from '../model';
import { el, put, setText } from './dom';
import { addUsage, count, dollars, hasUsage, safe, usageLine } from './format';
import {
  ApprovalRow,
  LaneRow,
  LineRow,
  type Place,
  PlanRow,
  QuestionRow,
  type Row,
  RunRow,
  TextRow,
  ToolRow,
  UnknownRow,
} from './rows';

/** Rows kept in the page while following the end of the log; older ones leave the page. */
export const LIVE_ROWS = 400;
/** Rows brought back per "show earlier". */
const PAGE = 200;
/** Colours of lanes. */
const COLOURS = 6;

/** The connection as the indicator shows it. */
export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'error';

type Totals = { input: number; output: number; costUsd: number };

/**
 * The viewer's state and its page: canonical events in (any format, as `connect()` delivers
 * them), rows out. Rows are appended at the end; at most {@link LIVE_ROWS} (plus what the reader
 * asked to see again) stay in the page, so a run of any length keeps the page light.
 */
export class Viewer {
  private readonly root: HTMLElement;
  private readonly log: HTMLElement;
  private readonly earlier: HTMLButtonElement;
  private readonly header = {
    title: el('h1', 'title', 'agentwire'),
    meta: el('div', 'meta'),
    format: el('span', 'format', 'format: …'),
    conn: el('span', 'conn', 'connecting'),
    gap: el('span', 'gap'),
    skipped: el('span', 'gap'),
    totals: el('div', 'totals'),
    status: el('div', 'status-line'),
  };
  private readonly rows: Row[] = [];
  /** Index of the first row in the page. */
  private first = 0;
  /** Rows before this index have been placed (those from `first` on are in the page). */
  private drawn = 0;
  /** Rows were put in the page since the last scroll to the end. */
  private placed = false;
  private following = true;
  private events = 0;

  private session: AgentEventOf<'session.start'> | undefined;
  private readonly lanes = new Map<string, LaneRow>();
  private readonly tools = new Map<string, ToolRow>();
  private readonly approvals = new Map<string, ApprovalRow>();
  private readonly questions = new Map<string, QuestionRow>();
  private readonly plans = new Map<string, PlanRow>();
  private readonly openText = new Map<string, TextRow>();
  private readonly rounds = new Map<string, number>();
  private run: RunRow | undefined;
  private runs = 0;
  private runRounds: Totals = { input: 0, output: 0, costUsd: 0 };
  private runHasRoundUsage = false;
  private readonly done: Totals = { input: 0, output: 0, costUsd: 0 };
  private readonly counts = { rounds: 0, tools: 0, failed: 0, errors: 0 };
  private totalsDirty = true;

  /** Builds the page inside `root`. */
  constructor(root: HTMLElement) {
    this.root = root;
    const top = el('header', 'top');
    const line = el('div', 'top-line');
    put(line, this.header.title, this.header.format, this.header.conn, this.header.gap, this.header.skipped);
    put(top, line, this.header.meta, this.header.totals);
    this.header.conn.dataset.state = 'connecting';
    this.header.conn.setAttribute('role', 'status');
    this.header.conn.setAttribute('aria-live', 'polite');
    this.earlier = el('button', 'earlier');
    this.earlier.type = 'button';
    this.earlier.hidden = true;
    this.earlier.addEventListener('click', () => this.showEarlier());
    this.log = el('main', 'log');
    this.log.setAttribute('aria-label', 'events');
    const help = el(
      'footer',
      'help',
      'j / k or ↓ / ↑: next / previous item · Enter: expand · Home / End: first / latest (End follows) · f: follow on/off',
    );
    put(this.root, top, this.earlier, this.log, this.header.status, help);
    this.root.addEventListener('keydown', (e) => this.key(e));
    window.addEventListener('scroll', () => {
      const bottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 40;
      if (bottom !== this.following && !this.scrolling) this.setFollowing(bottom);
    });
  }

  private scrolling = false;

  /** Shows the input's format and the session's address. */
  setSource(info: { format?: string | null; workspace?: string; session?: string }): void {
    setText(this.header.format, `format: ${info.format ?? 'detecting…'}`);
    this.header.format.dataset.format = info.format ?? '';
    if (this.session === undefined && info.session !== undefined) {
      setText(
        this.header.meta,
        `session ${info.session}${info.workspace ? ` · workspace ${info.workspace}` : ''}`,
      );
    }
  }

  /** Shows the connection state. */
  setConnection(state: ConnectionState, detail?: string): void {
    this.header.conn.dataset.state = state;
    setText(this.header.conn, detail === undefined ? state : `${state}: ${detail}`);
  }

  /** Shows that events were lost between two connections (the server no longer had them). */
  setGap(message: string): void {
    setText(this.header.gap, `gap: ${message}`);
    this.header.gap.dataset.gap = 'true';
  }

  /**
   * The server said the session is finished (`204`: no event will come). A run still open then
   * ended without its end record (the agent died, its output was cut): it shows `incomplete`,
   * as a reader of the cut log sees it, never `running` on a session that is over.
   */
  sessionEnded(): void {
    const run = this.run;
    if (run === undefined || run.end !== undefined) return;
    const end: AgentEventOf<'run.end'> = { type: 'run.end', status: 'incomplete' };
    this.runEnd(end, this.placeOf(end));
  }

  /** Shows that an event was too large for the page and skipped. */
  setSkipped(message: string): void {
    setText(this.header.skipped, `skipped: ${message}`);
  }

  /** Events handled so far. */
  get eventCount(): number {
    return this.events;
  }

  /** Rows in the log (in the page or not). */
  get rowCount(): number {
    return this.rows.length;
  }

  /** Handles one canonical event. */
  handle(e: AgentEvent): void {
    this.events++;
    const place = this.placeOf(e);
    const laneKey = e.lane ?? '';
    if (e.type !== 'text.delta' && e.type !== 'reasoning.delta' && e.type !== 'tool.args.delta') {
      if (e.type !== 'status' && e.type !== 'usage' && e.type !== 'message.start')
        this.openText.delete(laneKey);
    }
    this.roundMark(e, place);
    switch (e.type) {
      case 'session.start':
        this.session = e;
        this.sessionMeta();
        break;
      case 'session.title':
        setText(this.header.title, e.title);
        document.title = safe(`${e.title} · agentwire`);
        break;
      case 'tools.declare':
        this.header.meta.title = safe(`tools: ${e.tools.join(', ')}`);
        break;
      case 'run.start': {
        this.runs++;
        this.run = new RunRow(place, this.runs, e.input);
        this.runRounds = { input: 0, output: 0, costUsd: 0 };
        this.runHasRoundUsage = false;
        this.add(this.run);
        break;
      }
      case 'run.end':
        this.runEnd(e, place);
        break;
      case 'round.start':
        break;
      case 'round.end': {
        this.counts.rounds++;
        if (e.usage !== undefined && e.lane === undefined) {
          addUsage(this.runRounds, e.usage);
          this.runHasRoundUsage = true;
          if (this.run !== undefined && this.run.end === undefined) {
            this.run.total = { ...this.runRounds };
            this.run.refresh();
          }
        }
        this.add(
          new LineRow(place, 'round-end', [
            ['badge', `round ${e.round ?? ''} done`.replace('  ', ' ')],
            ['model', e.model],
            ['reason', e.stopReason],
            ['usage', usageLine(e.usage)],
          ]),
        );
        this.totalsDirty = true;
        break;
      }
      case 'message.start':
      case 'message.end':
        break;
      case 'text.delta':
        this.text(place, laneKey, 'assistant', 'message', e.text);
        break;
      case 'reasoning.delta':
        if (e.text !== '') this.text(place, laneKey, 'reasoning', 'reasoning', e.text);
        else if (e.redacted !== undefined || e.signature !== undefined) {
          this.add(
            new LineRow(place, 'reasoning', [
              ['who', 'reasoning'],
              ['dim', '(withheld by the provider)'],
            ]),
          );
        }
        break;
      case 'user.message':
        this.add(
          new LineRow(place, 'user', [
            ['who', e.synthetic ? 'harness' : 'user'],
            ['text', e.text],
          ]),
        );
        break;
      case 'status':
        setText(
          this.header.status,
          `${e.lane ? `[${this.laneName(e.lane)}] ` : ''}${e.status}${e.detail ? ` — ${e.detail}` : ''}`,
        );
        break;
      case 'tool.args.delta': {
        const t = this.tool(place, e.call, e.name ?? 'tool');
        t.args += e.text;
        t.argsLine = t.args;
        t.refresh();
        break;
      }
      case 'tool.start': {
        const t = this.tool(place, e.call, e.name);
        t.name = e.name;
        t.kind_ = e.kind;
        t.server = e.server;
        t.startedAt = e.startedAt ?? e.ts;
        const hasArgs = e.args !== undefined && Object.keys(e.args).length > 0;
        if (e.command !== undefined) t.args = t.argsLine = e.command;
        else if (hasArgs) {
          t.args = JSON.stringify(e.args, null, 2);
          t.argsLine = JSON.stringify(e.args);
        } else if (e.argsSummary !== undefined) t.args = t.argsLine = e.argsSummary;
        t.refresh();
        break;
      }
      case 'tool.output': {
        const t = this.tool(place, e.call, 'tool');
        t.addOutput(e.text);
        t.refresh();
        break;
      }
      case 'tool.liveness': {
        const t = this.tool(place, e.call, e.name ?? 'tool');
        t.liveness = `${e.action} after ${Math.round(e.elapsedMs / 1000)} s${e.detail ? ` (${e.detail})` : ''}`;
        t.refresh();
        break;
      }
      case 'tool.end':
        this.toolEnd(e, place);
        break;
      case 'approval.request': {
        const row = new ApprovalRow(place, e);
        this.approvals.set(e.approval, row);
        this.add(row);
        break;
      }
      case 'approval.resolve': {
        const row = this.approvals.get(e.approval);
        if (row === undefined) {
          this.add(
            new LineRow(place, 'approval', [
              ['badge', 'approval'],
              ['state', `${e.decision}${e.by ? ` by ${e.by}` : ''}`],
            ]),
          );
        } else {
          row.decision = e;
          row.refresh();
        }
        break;
      }
      case 'question': {
        const row = new QuestionRow(place, e);
        this.questions.set(e.question, row);
        this.add(row);
        break;
      }
      case 'question.answer': {
        const row = this.questions.get(e.question);
        if (row === undefined)
          this.add(
            new LineRow(place, 'question', [
              ['badge', 'answer'],
              ['text', JSON.stringify(e.answers)],
            ]),
          );
        else {
          row.answers = e.answers;
          row.refresh();
        }
        break;
      }
      case 'plan': {
        const id = e.plan ?? '';
        const row = this.plans.get(id);
        if (row !== undefined) {
          row.plan = e;
          row.refresh();
        } else {
          const fresh = new PlanRow(place, e);
          this.plans.set(id, fresh);
          this.add(fresh);
        }
        break;
      }
      case 'file.change':
        this.add(
          new LineRow(place, 'files', [
            ['badge', 'files'],
            ['text', e.changes.map((c) => `${c.kind} ${c.path}`).join('\n')],
            ['state', e.status],
          ]),
        );
        break;
      case 'notice':
        this.add(
          new LineRow(place, `notice ${e.severity === 'warning' ? 'warning' : ''}`, [
            ['badge', e.kind],
            ['text', e.message],
          ]),
        );
        break;
      case 'usage':
        break;
      case 'child.start': {
        const row = new LaneRow({ lane: e.child, colour: this.colourOf(e.child) }, e);
        this.lanes.set(e.child, row);
        this.add(row);
        break;
      }
      case 'child.progress': {
        const row = this.lanes.get(e.child);
        if (row !== undefined) {
          if (e.detail !== undefined) row.detail = e.detail;
          if (e.usage !== undefined) row.usage = e.usage;
          row.refresh();
        }
        break;
      }
      case 'child.end': {
        const row = this.lanes.get(e.child);
        if (row !== undefined) {
          row.status = e.status;
          row.result = e.result;
          if (e.usage !== undefined) row.usage = e.usage;
          row.refresh();
        }
        this.add(
          new LineRow({ lane: e.child, colour: this.colourOf(e.child) }, 'lane-end', [
            ['badge', `${this.laneName(e.child)} ${e.status}`],
            ['usage', usageLine(e.usage)],
          ]),
        );
        break;
      }
      case 'compaction.start':
        this.add(
          new LineRow(place, 'notice', [
            ['badge', 'compaction'],
            ['text', `compacting history${e.trigger ? ` (${e.trigger})` : ''}`],
          ]),
        );
        break;
      case 'compaction.end':
        this.add(
          new LineRow(place, 'notice', [
            ['badge', 'compaction'],
            [
              'text',
              `history compacted${e.tokensFreed !== undefined ? `: ${count(e.tokensFreed)} tokens freed` : ''}${e.tokensBefore !== undefined && e.tokensAfter !== undefined ? ` (${count(e.tokensBefore)} → ${count(e.tokensAfter)})` : ''}`,
            ],
          ]),
        );
        break;
      case 'error':
        this.counts.errors++;
        this.totalsDirty = true;
        this.add(
          new LineRow(place, `error ${e.fatal ? 'fatal' : ''}`, [
            ['badge', e.fatal ? 'fatal error' : 'error'],
            ['code', e.code],
            ['text', e.message],
          ]),
        );
        break;
      case 'cancel':
        this.add(
          new LineRow(place, 'error', [
            ['badge', 'cancelled'],
            ['text', e.by ? `by ${e.by}` : undefined],
          ]),
        );
        break;
      case 'unknown':
        this.add(new UnknownRow(place, e.recordType ?? 'record', e.record));
        break;
    }
  }

  /** Puts new rows and changed totals on the page (once per frame, not once per event). */
  flush(): void {
    this.place();
    if (!this.totalsDirty) return;
    this.totalsDirty = false;
    const total: Totals = { ...this.done };
    if (this.run !== undefined && this.run.end === undefined) addUsage(total, this.runRounds);
    const t = this.header.totals;
    t.dataset.events = String(this.events);
    t.textContent = '';
    put(
      t,
      el('span', 'stat', `${count(this.runs)} run(s)`),
      el('span', 'stat', `${count(this.counts.rounds)} round(s)`),
      el(
        'span',
        'stat',
        `${count(this.counts.tools)} tool call(s)${this.counts.failed ? `, ${count(this.counts.failed)} failed` : ''}`,
      ),
      el('span', `stat${this.counts.errors ? ' bad' : ''}`, `${count(this.counts.errors)} error(s)`),
      el('span', 'stat', `${count(total.input)} in · ${count(total.output)} out`),
      el('span', 'stat cost', total.costUsd ? dollars(total.costUsd) : 'no cost reported'),
      el('span', 'stat', `${count(this.events)} events`),
    );
  }

  /** Marks totals for the next flush (every event may change the count). */
  touch(): void {
    this.totalsDirty = true;
  }

  private sessionMeta(): void {
    const s = this.session;
    if (s === undefined) return;
    if (s.title !== undefined) {
      setText(this.header.title, s.title);
      document.title = safe(`${s.title} · agentwire`);
    }
    const bits = [
      s.session && `session ${s.session}`,
      s.producer,
      s.model && `model ${s.model}`,
      s.cwd && `cwd ${s.cwd}`,
      s.mode && `mode ${s.mode}`,
    ];
    setText(this.header.meta, bits.filter(Boolean).join(' · '));
  }

  private placeOf(e: AgentEvent): Place {
    return e.lane === undefined
      ? { lane: undefined, colour: 0 }
      : { lane: e.lane, colour: this.colourOf(e.lane) };
  }

  private readonly colours = new Map<string, number>();
  private colourOf(lane: string): number {
    let c = this.colours.get(lane);
    if (c === undefined) {
      c = this.colours.size % COLOURS;
      this.colours.set(lane, c);
    }
    return c;
  }

  private laneName(lane: string): string {
    const row = this.lanes.get(lane);
    return row?.start.name ?? lane;
  }

  // A round header when the first event of a new round (per lane) comes.
  private roundMark(e: AgentEvent, place: Place): void {
    if (e.round === undefined || e.type === 'run.start' || e.type === 'run.end') return;
    const key = e.lane ?? '';
    if (this.rounds.get(key) === e.round) return;
    this.rounds.set(key, e.round);
    this.openText.delete(key);
    this.add(
      new LineRow(place, 'round', [
        ['badge', `round ${e.round}`],
        ['model', e.type === 'round.start' ? e.model : undefined],
      ]),
    );
  }

  private text(place: Place, laneKey: string, label: string, cls: string, chunk: string): void {
    let row = this.openText.get(laneKey);
    if (row === undefined || row.cls !== cls) {
      row = new TextRow(place, label, cls);
      this.openText.set(laneKey, row);
      this.add(row);
    }
    row.append(chunk);
  }

  private tool(place: Place, call: string, name: string): ToolRow {
    let t = this.tools.get(call);
    if (t === undefined) {
      t = new ToolRow(place, call, name);
      this.tools.set(call, t);
      this.counts.tools++;
      this.totalsDirty = true;
      this.add(t);
    }
    return t;
  }

  private toolEnd(e: AgentEventOf<'tool.end'>, place: Place): void {
    const t = this.tool(place, e.call, e.name ?? 'tool');
    if (e.name !== undefined) t.name = e.name;
    t.state = e.denied ? 'denied' : e.ok ? 'ok' : 'failed';
    if (!e.ok) {
      this.counts.failed++;
      this.totalsDirty = true;
    }
    t.exitCode = e.exitCode;
    t.startedAt = e.startedAt ?? t.startedAt;
    t.endedAt = e.endedAt ?? e.ts;
    t.files = e.filesChanged ?? [];
    const parts: string[] = [];
    if (e.error !== undefined && e.error !== null && e.error !== '') {
      parts.push(typeof e.error === 'string' ? e.error : JSON.stringify(e.error));
    }
    if (e.text !== undefined && e.text !== '') parts.push(e.text);
    else if (e.result !== undefined)
      parts.push(typeof e.result === 'string' ? e.result : JSON.stringify(e.result, null, 2));
    t.result = parts.join('\n');
    this.tools.delete(e.call);
    t.refresh();
  }

  private runEnd(e: AgentEventOf<'run.end'>, place: Place): void {
    setText(this.header.status, '');
    let row = this.run;
    if (row === undefined || row.end !== undefined) {
      this.runs++;
      row = new RunRow(place, this.runs, e.input);
      this.add(row);
    }
    row.end = e;
    if (row.input === undefined && e.input !== undefined) row.input = e.input;
    // docs/model.md "Usage": the run's own total when it says one, else the sum of its rounds.
    const total: Usage | undefined = hasUsage(e.usage)
      ? e.usage
      : this.runHasRoundUsage
        ? { ...this.runRounds }
        : undefined;
    row.total = total;
    if (total !== undefined) addUsage(this.done, total);
    this.runRounds = { input: 0, output: 0, costUsd: 0 };
    this.runHasRoundUsage = false;
    row.refresh();
    // The end gets a line of its own too: the run's header may be far above.
    this.add(
      new LineRow(place, `run-end status-${e.status}`, [
        ['badge', `run ${row.index} ${e.status}`],
        ['reason', e.reason],
        ['usage', usageLine(total)],
        ['text', e.error],
      ]),
    );
    this.totalsDirty = true;
  }

  // ---- the window of rows in the page ----

  // A row joins the log; its element is built at the next flush, and only if it is still among
  // the rows the page keeps by then (in a burst, most rows never need one).
  private add(row: Row): void {
    this.rows.push(row);
  }

  // Puts the rows added since the last flush in the page and takes out those beyond the window:
  // the last LIVE_ROWS while following, ten times that while the reader is scrolled back.
  private place(): void {
    const end = this.rows.length;
    const keep = this.following ? LIVE_ROWS : LIVE_ROWS * 10;
    const first = Math.max(this.first, end - keep);
    for (let i = this.first; i < Math.min(first, this.drawn); i++) {
      const row = this.rows[i]!;
      row.el?.remove();
      row.el = undefined;
    }
    const from = Math.max(this.drawn, first);
    if (from < end) {
      this.placed = true;
      const frag = document.createDocumentFragment();
      for (let i = from; i < end; i++) {
        const row = this.rows[i]!;
        row.el = row.build();
        frag.append(row.el);
      }
      this.log.append(frag);
    }
    const moved = first !== this.first;
    this.first = first;
    this.drawn = end;
    if (moved) this.updateEarlier();
  }

  private updateEarlier(): void {
    this.earlier.hidden = this.first === 0;
    setText(this.earlier, `show earlier (${count(this.first)} item(s) out of the page)`);
    this.earlier.dataset.hidden = String(this.first);
  }

  private showEarlier(): void {
    const from = Math.max(0, this.first - PAGE);
    const anchor = this.rows[this.first]?.el;
    const frag = document.createDocumentFragment();
    for (let i = from; i < this.first; i++) {
      const row = this.rows[i]!;
      row.el = row.build();
      frag.append(row.el);
    }
    this.first = from;
    this.log.prepend(frag);
    this.setFollowing(false);
    anchor?.scrollIntoView({ block: 'start' });
    this.updateEarlier();
  }

  private setFollowing(on: boolean): void {
    this.following = on;
    this.root.dataset.following = String(on);
    if (on) {
      this.place();
      this.scrollToEnd();
    }
  }

  /** Keeps the latest row in view while following. */
  scrollToEnd(): void {
    if (!this.following || !this.placed) return;
    this.placed = false;
    this.scrolling = true;
    window.scrollTo(0, document.documentElement.scrollHeight);
    requestAnimationFrame(() => {
      this.scrolling = false;
    });
  }

  // ---- keyboard ----

  private key(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target as HTMLElement;
    const row = target.closest?.('.row') as HTMLElement | null;
    switch (e.key) {
      case 'j':
      case 'ArrowDown':
        this.move(row, 1);
        break;
      case 'k':
      case 'ArrowUp':
        this.move(row, -1);
        break;
      case 'Enter':
      case ' ':
        if (row === null || target.tagName === 'BUTTON') return;
        this.rowOf(row)?.toggle();
        break;
      case 'Home':
      case 'g':
        (this.log.firstElementChild as HTMLElement | null)?.focus();
        this.setFollowing(false);
        break;
      case 'End':
      case 'G':
        this.setFollowing(true);
        (this.log.lastElementChild as HTMLElement | null)?.focus({ preventScroll: true });
        break;
      case 'f':
        this.setFollowing(!this.following);
        break;
      default:
        return;
    }
    e.preventDefault();
  }

  private rowOf(node: HTMLElement): Row | undefined {
    for (let i = this.rows.length - 1; i >= this.first; i--)
      if (this.rows[i]!.el === node) return this.rows[i];
    return undefined;
  }

  private move(from: HTMLElement | null, step: 1 | -1): void {
    let next: Element | null;
    if (from === null) next = step === 1 ? this.log.firstElementChild : this.log.lastElementChild;
    else next = step === 1 ? from.nextElementSibling : from.previousElementSibling;
    if (next === null && step === -1 && this.first > 0) {
      this.showEarlier();
      next = from?.previousElementSibling ?? null;
    }
    if (next instanceof HTMLElement) {
      if (step === -1 || next !== this.log.lastElementChild) this.setFollowing(false);
      next.focus();
      next.scrollIntoView({ block: 'nearest' });
    }
  }
}
