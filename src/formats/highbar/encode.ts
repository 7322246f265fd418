import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import { assertEncodable, isJsonObject, type JsonObject, rawIfSame } from '../../json';
import { LossReporter } from '../../loss';
import type { AgentEvent, AgentEventOf, Provenance } from '../../model';
import { joinPy, pyDumps, pyFloat, pyKey } from './pyjson';
import { HIGHBAR, type HighbarHints, highbarToolLine } from './wire';

/** Options of the highbar writer. */
export interface HighbarEncodeOptions extends EncodeOptions {
  /**
   * The clock for records whose event has no `ts` (events built by hand), in ms since the epoch.
   * Default `Date.now`. Inject one for deterministic output. (The same option as nativeharness's
   * and the emitters' `clock`.)
   */
  clock?: () => number;
  /** @deprecated The old name of {@link HighbarEncodeOptions.clock}; used when `clock` is absent. */
  now?: () => number;
}

// Fields each event type carries into highbar; anything else present is reported as a loss.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': ['ts', 'context', 'producer', 'pid', 'tools'],
  'tools.declare': ['ts', 'context', 'tools'],
  'run.start': ['ts', 'context', 'input'],
  'run.end': ['ts', 'context', 'status', 'answer', 'input'],
  'tool.start': ['ts', 'context', 'call', 'name', 'args', 'startedAt'],
  'tool.end': ['ts', 'context', 'call', 'name', 'ok', 'result', 'text', 'error', 'startedAt', 'endedAt'],
  unknown: ['ts', 'context', 'record', 'recordType'],
};

// tool.start with args: its argsSummary is carried too (args say it all).
const CARRIED_TOOL_START_ARGS: readonly string[] = [...CARRIED['tool.start']!, 'argsSummary'];

function isFailure(error: unknown): boolean {
  return !(error === undefined || error === null || error === false || error === '');
}

/**
 * One record's `"key": value` pairs. Without a key order to restore they are joined as they come
 * (no pair arrays); a line with its own key order collects them and {@link joinPy} sorts them.
 */
class Fields {
  /** The highbar provenance the record comes from (its extra fields, hints and key order). */
  readonly provenance: Provenance | undefined;
  private text = '';
  private readonly pieces: Array<[string, string]> | undefined;
  private readonly order: readonly string[] | undefined;

  constructor(order: readonly string[] | undefined, provenance?: Provenance) {
    this.provenance = provenance;
    this.order = order;
    if (order !== undefined) this.pieces = [];
  }

  add(key: string, value: string): void {
    if (this.pieces !== undefined) this.pieces.push([key, value]);
    else if (this.text === '') this.text = keyText(key).first + value;
    else this.text += keyText(key).next + value;
  }

  join(): string {
    return this.pieces !== undefined ? joinPy(this.pieces, this.order) : `{${this.text}}`;
  }
}

interface KeyText {
  first: string; // `"key": `
  next: string; // `, "key": `
}

// A record's keys as written before their values, for the keys records repeat (bounded: keys
// from data vary): one concatenation per field instead of four.
const keyTexts = new Map<string, KeyText>();

function keyText(key: string): KeyText {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = { first: `${pyKey(key)}: `, next: `, ${pyKey(key)}: ` };
    if (keyTexts.size < 512) keyTexts.set(key, text);
  }
  return text;
}

// One tool call as the writer has it from its start and end events.
interface ToolCall {
  name: string;
  args: unknown;
  result: unknown;
  error: unknown;
  ts: number | undefined;
  startedAt: number | undefined;
  endedAt: number | undefined;
  context: unknown;
}

function highbarProvenance(event: AgentEvent | undefined): Provenance | undefined {
  const p = event?.provenance;
  return p !== undefined && p.format === HIGHBAR ? p : undefined;
}

/**
 * The highbar trace writer: canonical events → contract lines, byte-exact in Python
 * `json.dumps` style with the contract's key order (`v`, `type`, `ts`, fields, `context`).
 * `tool.start` waits for its `tool.end` (by call id) and the pair becomes one `tool` record;
 * `run.end` is a `turn`; `session.start` a `hello`; `tools.declare` a `tools`; `run.start` writes
 * nothing (its `input` goes into the next `turn` that has none). Other events are `loss`es.
 */
export class HighbarEncoder implements Encoder {
  private readonly loss: LossReporter;
  private readonly clock: () => number;
  private readonly starts = new Map<string, AgentEventOf<'tool.start'>>();
  private runInput: string | undefined;
  private lastMs = Number.NaN;
  private lastSeconds = '';

  /** Creates a writer reporting losses to `sink`. */
  constructor(options: HighbarEncodeOptions, sink: DiagnosticSink) {
    this.loss = new LossReporter(HIGHBAR, sink);
    this.clock = options.clock ?? options.now ?? Date.now;
  }

  write(event: AgentEvent): string {
    const carried = CARRIED[event.type];
    if (carried === undefined) {
      this.loss.report(event, event.type, 'highbar has no record for this event');
      return '';
    }
    if (event.type === 'tool.start' && event.args !== undefined) {
      this.loss.check(event, CARRIED_TOOL_START_ARGS);
    } else this.loss.check(event, carried);
    switch (event.type) {
      case 'session.start': {
        const pieces = this.head('hello', event);
        if (event.producer !== undefined) pieces.add('sdk', pyDumps(event.producer, 'producer'));
        if (event.pid !== undefined) pieces.add('pid', pyDumps(event.pid, 'pid'));
        if (event.tools !== undefined) pieces.add('tools', pyDumps(event.tools, 'tools'));
        return this.finish(pieces, event.context);
      }
      case 'tools.declare': {
        const pieces = this.head('tools', event);
        pieces.add('names', pyDumps(event.tools, 'tools'));
        return this.finish(pieces, event.context);
      }
      case 'run.start':
        this.runInput = event.input;
        return '';
      case 'run.end': {
        // A run end implied by a stream that stopped (docs/model.md "Run outcome") came from no record.
        if (event.status === 'incomplete' && event.provenance?.synthetic) return '';
        if (event.status !== 'completed') {
          this.loss.report(event, 'run.end.status', 'a turn record has no status (it is written either way)');
        }
        // Calls still open when the run ends (cancelled, failed) are written before its turn.
        const open = this.flushOpenCalls();
        const pieces = this.head('turn', event);
        const input = event.input ?? this.runInput;
        this.runInput = undefined;
        if (input !== undefined) pieces.add('message', pyDumps(input, 'input'));
        if (event.answer !== undefined) pieces.add('response', pyDumps(event.answer, 'answer'));
        return open + this.finish(pieces, event.context);
      }
      case 'tool.start':
        this.starts.set(event.call, event);
        return '';
      case 'tool.end': {
        const start = this.starts.get(event.call);
        this.starts.delete(event.call);
        return this.tool(start, event);
      }
      case 'unknown':
        return this.unknown(event);
      default:
        return '';
    }
  }

  end(): string {
    return this.flushOpenCalls();
  }

  private flushOpenCalls(): string {
    let text = '';
    for (const start of this.starts.values()) {
      this.loss.report(start, 'tool.end', 'a tool call without an end is written with result null');
      const end: AgentEventOf<'tool.end'> = {
        type: 'tool.end',
        call: start.call,
        ok: true,
        result: null,
        error: null,
      };
      text += this.tool(start, end);
    }
    this.starts.clear();
    return text;
  }

  /** `v`, `type`, `ts`: how every v1 record begins. */
  private head(type: string, event: AgentEvent): Fields {
    const p = highbarProvenance(event);
    const pieces = new Fields(p?.order, p);
    pieces.add('v', '1');
    pieces.add('type', `"${type}"`);
    const hints = p?.hints as HighbarHints | undefined;
    const ts = this.time('ts', event.ts, undefined, hints, true);
    if (ts !== undefined) pieces.add('ts', ts);
    return pieces;
  }

  /**
   * The seconds text for a time field: as written when the hint still holds, left out when the
   * line had none and the model holds only the default, else `ms / 1000` as a Python float.
   */
  private time(
    key: 'ts' | 'started_at' | 'ended_at',
    ms: number | undefined,
    fallback: number | undefined,
    hints: HighbarHints | undefined,
    clock: boolean,
  ): string | undefined {
    const invalid = hints?.invalid;
    if (invalid !== undefined && Object.hasOwn(invalid, key) && ms === fallback) {
      return pyDumps(invalid[key], key);
    }
    if (hints?.absent?.includes(key) && ms === fallback) return undefined;
    if (ms === undefined) {
      if (!clock) return undefined;
      ms = this.clock();
    }
    const token = hints?.[key];
    if (token !== undefined && Number(token) * 1000 === ms) return token;
    if (!Number.isFinite(ms)) assertEncodable(ms, key, undefined, 'highbar'); // throws
    // A record's times are mostly one value (ts = started_at = ended_at): print it once.
    if (!Object.is(ms, this.lastMs)) {
      this.lastMs = ms;
      this.lastSeconds = pyFloat(ms / 1000);
    }
    return this.lastSeconds;
  }

  private finish(pieces: Fields, context: unknown): string {
    if (context !== undefined) pieces.add('context', pyDumps(context, 'context'));
    const p = pieces.provenance;
    if (p?.extra !== undefined) {
      for (const key of Object.keys(p.extra)) {
        const value = p.extra[key];
        if (value !== undefined) pieces.add(key, pyDumps(value, key));
      }
    }
    return this.line(pieces.join(), p?.hints as HighbarHints | undefined);
  }

  /** The line, or the original line when it says the same thing in another writer's style. */
  private line(text: string, hints: HighbarHints | undefined): string {
    return `${rawIfSame(hints?.raw, text)}\n`;
  }

  private tool(start: AgentEventOf<'tool.start'> | undefined, end: AgentEventOf<'tool.end'>): string {
    const name = start?.name ?? end.name;
    if (name === undefined) {
      this.loss.report(
        end,
        'tool.end.name',
        'a tool record needs fn; a call whose name is unknown is not written',
      );
      return '';
    }
    const p = highbarProvenance(end) ?? highbarProvenance(start);
    const hints = p?.hints as HighbarHints | undefined;
    const args = start?.args;
    const context = end.context ?? start?.context;
    let error: unknown = end.error;
    if (end.ok && isFailure(error)) {
      this.loss.report(end, 'tool.end.error', 'ok is true, so the error is written as null');
      error = null;
    } else if (!end.ok && !isFailure(error)) {
      error = end.text ?? 'failed';
    }
    const result = end.result !== undefined ? end.result : end.text;
    const startedAt = end.startedAt ?? start?.startedAt;
    const endedAt = end.endedAt;

    if (hints?.v0 !== undefined) {
      const pieces = new Fields(hints.v0);
      if (hints.v0.includes('v')) pieces.add('v', '0');
      pieces.add('fn', pyDumps(name, 'name'));
      if (args !== undefined) pieces.add('args', pyDumps(args, 'args'));
      if (result !== undefined) pieces.add('result', pyDumps(result, 'result'));
      if (error !== undefined) pieces.add('error', pyDumps(error, 'error'));
      const s = this.time('started_at', startedAt, undefined, hints, false);
      if (s !== undefined) pieces.add('started_at', s);
      const e = this.time('ended_at', endedAt, undefined, hints, false);
      if (e !== undefined) pieces.add('ended_at', e);
      if (isJsonObject(context)) {
        for (const key of Object.keys(context)) {
          const value = (context as JsonObject)[key];
          if (value !== undefined) pieces.add(key, pyDumps(value, key));
        }
      }
      return this.line(pieces.join(), hints);
    }

    const ts = end.ts ?? start?.ts;
    if (p === undefined)
      return this.foreignTool({ name, args, result, error, ts, startedAt, endedAt, context });
    const pieces = new Fields(p.order, p);
    pieces.add('v', '1');
    pieces.add('type', '"tool"');
    const tsText = this.time('ts', ts, undefined, hints, true);
    if (tsText !== undefined) pieces.add('ts', tsText);
    // The record's ts is the default of its times; a hand-built event without ts gets the clock's.
    // A ts that was not a number, written back as it came, is no default (the model has none).
    const base =
      ts ??
      (tsText === undefined || (hints?.invalid !== undefined && Object.hasOwn(hints.invalid, 'ts'))
        ? undefined
        : Number(tsText) * 1000);
    pieces.add('fn', pyDumps(name, 'name'));
    if (args !== undefined) pieces.add('args', pyDumps(args, 'args'));
    const resultText = result !== undefined ? pyDumps(result, 'result') : undefined;
    if (resultText !== undefined) pieces.add('result', resultText);
    // A failed call's error is often its output text too: escape that text once.
    if (error !== undefined) {
      pieces.add(
        'error',
        error === result && typeof error === 'string' ? resultText! : pyDumps(error, 'error'),
      );
    }
    const s = this.time('started_at', startedAt ?? base, base, hints, false);
    if (s !== undefined) pieces.add('started_at', s);
    const e = this.time('ended_at', endedAt ?? base, base, hints, false);
    if (e !== undefined) pieces.add('ended_at', e);
    return this.finish(pieces, context);
  }

  /**
   * A call from another format: the reference emitter's full shape (args, result and error
   * always: {}, null, null when unknown) in the contract's key order, as one template. The same
   * text as the field-by-field path, which lines from highbar (their order, extras, hints) take.
   */
  private foreignTool(call: ToolCall): string {
    const { name, args, result, error, ts, startedAt, endedAt, context } = call;
    const tsText = this.time('ts', ts, undefined, undefined, true)!;
    // The record's ts is the default of its times; a hand-built event without ts gets the clock's.
    const base = ts ?? Number(tsText) * 1000;
    const resultText = result !== undefined ? pyDumps(result, 'result') : 'null';
    return highbarToolLine({
      ts: tsText,
      fn: pyDumps(name, 'name'),
      args: args !== undefined ? pyDumps(args, 'args') : '{}',
      result: resultText,
      // A failed call's error is often its output text too: escape that text once.
      error:
        error === undefined
          ? 'null'
          : error === result && typeof error === 'string'
            ? resultText
            : pyDumps(error, 'error'),
      startedAt: this.time('started_at', startedAt ?? base, base, undefined, false)!,
      endedAt: this.time('ended_at', endedAt ?? base, base, undefined, false)!,
      context: context === undefined ? undefined : pyDumps(context, 'context'),
    });
  }

  private unknown(event: AgentEventOf<'unknown'>): string {
    const p = event.provenance;
    if (p !== undefined && p.format !== HIGHBAR) {
      this.loss.foreignRecord(event, 'highbar line');
      return '';
    }
    return this.line(pyDumps(event.record, 'unknown.record'), p?.hints as HighbarHints | undefined);
  }
}
