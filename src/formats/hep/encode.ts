import { boundSummary, boundText } from '../../bounds';
import type { EncodeOptions, Encoder } from '../../codec';
import { AgentwireError, type DiagnosticSink } from '../../diagnostics';
import {
  assertEncodable,
  formatDouble,
  formatInteger,
  isJsonObject,
  type JsonObject,
  jsonString,
  rawIfSame,
} from '../../json';
import { LossReporter } from '../../loss';
import type { AgentEvent, AgentEventOf } from '../../model';
import { joinRecord } from '../../record';
import {
  HEP,
  HEP_FULL_ARGS_CAP,
  HEP_MAX_HELD_RESULT_CHARS,
  HEP_SUMMARY_ARGS_CAP,
  HEP_TOOL_RESULT_TEXT_CAP,
  HEP_VERSION,
  type HepHints,
  hepMessageDeltaLine,
  hepToolDeltaLine,
  isHepV1,
} from './wire';

/** Options of the HEP writer. */
export interface HepEncodeOptions extends EncodeOptions {
  /**
   * How `tool_start.args_summary` is written from an args object: `summary` (`key=<json>`
   * joined with `", "`, cut at 100 + `...`; `fa --output events`) or `full` (compact JSON, cut
   * at 4000 + `…(+N chars)`; `fa --output events=full`). Default `summary`. An event that
   * already carries `argsSummary` is written with it (bounded).
   */
  args?: 'summary' | 'full';
  /**
   * `keep` (default): use the `round` events carry as `turn_id`, allocating only for events
   * without one. `allocate`: ignore `round` and allocate ids exactly as the reference
   * `HepWriter` does (use it when the events come from another format).
   */
  turnIds?: 'keep' | 'allocate';
  /** Session id for the header when no `session.start` event (or session) provides one. */
  session?: string;
  /** `fah` for the header when no `session.start` carries a `producer`. Default `"agentwire"`. */
  producer?: string;
  /** Makes session ids when none is given. Default `crypto.randomUUID()`. */
  idSource?: () => string;
  /**
   * `as-events` (default): a `message_start` for each `message.start` event. `each-round`: also
   * one before the first `message_delta` or `tool_start` of a round that has none, as the
   * reference writes every round (use it when the events come from another format; `convert`
   * does).
   */
  messageStarts?: 'as-events' | 'each-round';
}

// What the HEP decoder left for this writer (wire.ts, HepHints), for events decoded from HEP.
function hintsOf(event: AgentEvent | undefined): HepHints | undefined {
  const p = event?.provenance;
  return p?.format === HEP ? (p.hints as HepHints | undefined) : undefined;
}

/** `key=<json>` summary of one value, as the reference formats tool arguments. */
function summaryValue(value: unknown): string {
  try {
    assertEncodable(value, 'value');
    const s = JSON.stringify(value);
    return s === undefined ? '[unserializable]' : s;
  } catch {
    return '[unserializable]';
  }
}

/** The `args_summary` the reference writes for `args` in `mode`. */
export function hepArgsSummary(args: Record<string, unknown>, mode: 'summary' | 'full'): string {
  if (mode === 'full') {
    let encoded: string;
    try {
      assertEncodable(args, 'args');
      encoded = JSON.stringify(args);
    } catch {
      encoded = '[unserializable]';
    }
    return boundText(encoded, HEP_FULL_ARGS_CAP);
  }
  const parts: string[] = [];
  for (const key of Object.keys(args)) parts.push(`${key}=${summaryValue(args[key])}`);
  return boundSummary(parts.join(', '), HEP_SUMMARY_ARGS_CAP);
}

function defaultId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID !== undefined) return c.randomUUID();
  return `agentwire-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

function str(value: unknown, field: string): string {
  if (typeof value !== 'string') {
    throw new AgentwireError({
      code: 'unencodable',
      severity: 'error',
      message: `${field}: expected a string, got ${value === null ? 'null' : typeof value}`,
      format: 'hep',
    });
  }
  return jsonString(value);
}

const encodeValue = (value: unknown): string => JSON.stringify(value);

// Fields each event type carries into HEP; anything else present is reported as a loss.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': ['session', 'producer', 'protocol'],
  'run.start': ['round', 'session'],
  'run.end': ['session', 'status', 'answer', 'stopReason', 'usage'],
  'message.start': ['round', 'session', 'role'],
  'text.delta': ['round', 'session', 'text'],
  'tool.start': ['round', 'session', 'call', 'name', 'args', 'argsSummary'],
  'tool.output': ['round', 'session', 'call', 'text'],
  'tool.liveness': ['round', 'session', 'call', 'name', 'action', 'elapsedMs', 'outputBytes', 'detail'],
  'tool.end': ['round', 'session', 'call', 'name', 'ok', 'text', 'error'],
  'round.end': ['round', 'session', 'message', 'stopReason', 'usage'],
  error: ['round', 'session', 'message', 'fatal'],
  cancel: ['round', 'session'],
  'compaction.start': ['round', 'session'],
  'compaction.end': ['round', 'session', 'tokensFreed'],
  unknown: ['round', 'session', 'record', 'recordType'],
};

/**
 * The HEP v1 writer: canonical events → frames, byte-exact to the reference `HepWriter`
 * (key order, compact JSON, `cost` as a double, bounds, lazy turn-id allocation).
 */
export class HepEncoder implements Encoder {
  private readonly mode: 'summary' | 'full';
  private readonly allocate: boolean;
  private readonly options: HepEncodeOptions;
  private readonly loss: LossReporter;
  private headerWritten = false;
  private nextTurnId = 1;
  private openTurnId: number | undefined;
  private agentStartEmitted = false;
  private compacting = false;
  private runEnded = false;
  private results: string[] = [];
  // UTF-16 code units in `results` (bounded for rounds the writer made up).
  private heldChars = 0;
  private readonly outputs = new Map<string, { text: string; length: number }>();
  private roundWritten = false;
  // A message_start was written in the round now open (for `messageStarts: 'each-round'`).
  private messageOpen = false;

  /** Creates a writer reporting losses to `sink`. */
  constructor(options: HepEncodeOptions, sink: DiagnosticSink) {
    this.options = options;
    this.mode = options.args ?? 'summary';
    this.allocate = options.turnIds === 'allocate';
    this.loss = new LossReporter('hep', sink);
  }

  write(event: AgentEvent): string {
    // A run that ended without its terminal record has none to write (docs/model.md "Run outcome").
    if (event.type === 'run.end' && event.status === 'incomplete' && event.provenance?.synthetic) return '';
    const carried = CARRIED[event.type];
    if (carried !== undefined) this.loss.check(event, carried);
    switch (event.type) {
      case 'session.start':
        if (this.headerWritten) {
          this.loss.report(
            event,
            'session.start',
            'HEP has one session per stream; a second header is not written',
          );
          return '';
        }
        return this.header(event);
      case 'run.start': {
        let text = this.ensureHeader(event);
        if (this.agentStartEmitted) {
          this.loss.report(
            event,
            'run.start',
            'HEP carries one run per stream (one fa process): a later run continues as more rounds of the first',
          );
          return text;
        }
        this.agentStartEmitted = true;
        const id = this.turnId(event);
        text += this.frame('agent_start', [['turn_id', formatInteger(id, 'turn_id')]], event);
        return text;
      }
      case 'message.start':
        this.messageOpen = true;
        return (
          this.ensureHeader(event) +
          this.frame(
            'message_start',
            [
              ['turn_id', String(this.turnId(event))],
              ['role', '"assistant"'],
            ],
            event,
          )
        );
      case 'text.delta': {
        const head = this.ensureHeader(event) + this.impliedMessageStart(event);
        const turn = String(this.turnId(event));
        const delta = str(event.text, 'text.delta.text');
        if (this.plain(event)) return head + hepMessageDeltaLine(turn, delta);
        return (
          head +
          this.frame(
            'message_delta',
            [
              ['turn_id', turn],
              ['delta', delta],
            ],
            event,
          )
        );
      }
      case 'tool.start':
        return (
          this.ensureHeader(event) +
          this.impliedMessageStart(event) +
          this.frame(
            'tool_start',
            [
              ['turn_id', String(this.turnId(event))],
              ['id', str(event.call, 'tool.start.call')],
              ['name', str(event.name, 'tool.start.name')],
              ['args_summary', jsonString(this.argsSummary(event))],
            ],
            event,
          )
        );
      case 'tool.output':
        if (event.text === '') return '';
        this.collectOutput(event.call, event.text);
        {
          const head = this.ensureHeader(event);
          const turn = String(this.turnId(event));
          const id = str(event.call, 'tool.output.call');
          const update = str(event.text, 'tool.output.text');
          if (this.plain(event)) return head + hepToolDeltaLine(turn, id, update);
          return (
            head +
            this.frame(
              'tool_delta',
              [
                ['turn_id', turn],
                ['id', id],
                ['update', update],
              ],
              event,
            )
          );
        }
      case 'tool.liveness': {
        const pieces: Array<[string, string]> = [
          ['turn_id', String(this.turnId(event))],
          ['id', str(event.call, 'tool.liveness.call')],
          ['name', str(event.name ?? '', 'tool.liveness.name')],
          ['action', str(event.action, 'tool.liveness.action')],
          ['elapsed_ms', formatInteger(event.elapsedMs, 'tool.liveness.elapsedMs')],
        ];
        if (event.outputBytes !== undefined) {
          pieces.push(['output_bytes', formatInteger(event.outputBytes, 'tool.liveness.outputBytes')]);
        }
        if (event.detail !== undefined && event.detail !== '') {
          pieces.push(['detail', str(event.detail, 'tool.liveness.detail')]);
        }
        return this.ensureHeader(event) + this.frame('tool_liveness', pieces, event);
      }
      case 'tool.end': {
        const text = this.ensureHeader(event);
        this.turnId(event);
        const result = this.toolResult(event);
        this.results.push(result);
        this.heldChars += result.length;
        if (
          this.heldChars > HEP_MAX_HELD_RESULT_CHARS &&
          (this.allocate || typeof event.round !== 'number')
        ) {
          return text + this.cutRound(event);
        }
        return text;
      }
      case 'round.end':
        return this.ensureHeader(event) + this.turnDone(event, event.message, event.stopReason, event.usage);
      case 'error': {
        if (!event.fatal && this.openTurnId === undefined && event.round === undefined) {
          // A recoverable error outside any round has no HEP frame.
          this.loss.report(event, 'error', 'HEP has no frame for a recoverable error outside a round');
          return '';
        }
        // A provider error ends a round whose message had started (the reference's stream starts it).
        const text =
          this.ensureHeader(event) + this.flushResultsAsLoss(event) + this.impliedMessageStart(event);
        const id = this.turnId(event);
        this.closeRound();
        if (event.fatal) this.runEnded = true;
        return (
          text +
          this.frame(
            'turn_error',
            [
              ['turn_id', String(id)],
              ['error', str(event.message, 'error.message')],
              ['fatal', event.fatal ? 'true' : 'false'],
            ],
            event,
          )
        );
      }
      case 'cancel': {
        const text = this.ensureHeader(event) + this.flushResultsAsLoss(event);
        const id = this.turnId(event);
        this.closeRound();
        this.runEnded = true;
        return text + this.frame('cancelled', [['turn_id', String(id)]], event);
      }
      case 'compaction.start': {
        const text = this.ensureHeader(event);
        const id =
          this.allocate || event.round === undefined
            ? (this.openTurnId ??= this.nextTurnId++)
            : this.take(event.round);
        this.compacting = true;
        return text + this.frame('compaction_start', [['turn_id', String(id)]], event);
      }
      case 'compaction.end': {
        let text = this.ensureHeader(event);
        if (!this.compacting) {
          // HEP brackets every compaction: an end from a format without starts gets its start.
          const open =
            this.allocate || event.round === undefined
              ? (this.openTurnId ??= this.nextTurnId++)
              : this.take(event.round);
          text += this.frame('compaction_start', [['turn_id', String(open)]], undefined);
        }
        this.compacting = false;
        const id =
          this.allocate || event.round === undefined ? (this.openTurnId ?? this.nextTurnId - 1) : event.round;
        return (
          text +
          this.frame(
            'compaction_end',
            [
              ['turn_id', formatInteger(id, 'turn_id')],
              ['tokens_freed', formatInteger(event.tokensFreed ?? 0, 'compaction.end.tokensFreed')],
            ],
            event,
          )
        );
      }
      case 'run.end': {
        // A run already ended by cancelled or a fatal turn_error gets no second terminal frame;
        // results that came after it have no place.
        if (this.runEnded) {
          this.runEnded = false;
          return this.flushResultsAsLoss(event);
        }
        // HEP ends a run by ending the process; a round still open gets its terminal frame.
        if (!this.roundWritten && this.results.length === 0) return '';
        const text = this.ensureHeader(event);
        if (event.status === 'cancelled') {
          const id = this.turnId(event);
          this.results = [];
          this.closeRound();
          return text + this.frame('cancelled', [['turn_id', String(id)]], undefined);
        }
        if (event.status === 'failed') {
          const id = this.turnId(event);
          this.results = [];
          this.closeRound();
          return (
            text +
            this.frame(
              'turn_error',
              [
                ['turn_id', String(id)],
                ['error', '"run failed"'],
                ['fatal', 'true'],
              ],
              undefined,
            )
          );
        }
        return text + this.turnDone(undefined, event.answer ?? '', event.stopReason, undefined);
      }
      case 'unknown':
        return this.ensureHeader(event) + this.unknownRecord(event);
      default:
        this.loss.report(event, event.type, `HEP has no frame for ${event.type} events`);
        return '';
    }
  }

  end(): string {
    // Only buffered tool results force a terminal frame: an open round without them is a stream
    // cut mid-round, and inventing its end would not be byte-exact.
    if (this.results.length > 0 && !this.runEnded) {
      return this.turnDone(undefined, '', undefined, undefined);
    }
    return '';
  }

  private header(event: AgentEventOf<'session.start'> | undefined): string {
    this.headerWritten = true;
    const session = event?.session ?? this.options.session ?? (this.options.idSource ?? defaultId)();
    const version = event?.protocol !== undefined && isHepV1(event.protocol) ? event.protocol : HEP_VERSION;
    const fah = event?.producer ?? this.options.producer ?? 'agentwire';
    return this.frame(
      'hep_header',
      [
        ['hep', str(version, 'session.start.protocol')],
        ['fah', str(fah, 'session.start.producer')],
        ['session', str(session, 'session.start.session')],
      ],
      event,
    );
  }

  private ensureHeader(event: AgentEvent): string {
    if (this.headerWritten) return '';
    const session = event.session;
    if (session !== undefined) return this.header({ type: 'session.start', session });
    return this.header(undefined);
  }

  private take(round: number): number {
    this.openTurnId = round;
    if (round >= this.nextTurnId) this.nextTurnId = round + 1;
    return round;
  }

  // The reference's lazy allocation: the first frame of a round takes the next id.
  private turnId(event: AgentEvent): number {
    this.roundWritten = true;
    if (!this.allocate && typeof event.round === 'number') {
      if (!Number.isSafeInteger(event.round)) formatInteger(event.round, 'round');
      return this.take(event.round);
    }
    this.openTurnId ??= this.nextTurnId++;
    return this.openTurnId;
  }

  // The message_start a round from another format lacks (`messageStarts: 'each-round'`).
  private impliedMessageStart(event: AgentEvent): string {
    if (this.messageOpen || this.options.messageStarts !== 'each-round') return '';
    this.messageOpen = true;
    return this.frame(
      'message_start',
      [
        ['turn_id', String(this.turnId(event))],
        ['role', '"assistant"'],
      ],
      undefined,
    );
  }

  // Ends a round the writer made up whose held results passed HEP_MAX_HELD_RESULT_CHARS.
  private cutRound(event: AgentEvent): string {
    this.loss.report(
      event,
      'round',
      `tool results held for one round passed ${HEP_MAX_HELD_RESULT_CHARS} characters: the round is ended with a turn_done and the next event opens another`,
    );
    return this.turnDone(undefined, '', 'toolUse', undefined);
  }

  private closeRound(): void {
    this.heldChars = 0;
    this.messageOpen = false;
    this.openTurnId = undefined;
    this.roundWritten = false;
  }

  private argsSummary(event: AgentEventOf<'tool.start'>): string {
    if (event.argsSummary !== undefined) {
      const s = event.argsSummary;
      if (typeof s !== 'string') str(s, 'tool.start.argsSummary');
      return s.charCodeAt(0) === 123
        ? boundText(s, HEP_FULL_ARGS_CAP)
        : boundSummary(s, HEP_SUMMARY_ARGS_CAP);
    }
    if (event.args !== undefined) {
      try {
        assertEncodable(event.args, 'tool.start.args', undefined, 'hep');
      } catch (error) {
        // The reference writes what JSON cannot hold as [unserializable]; say so.
        this.loss.report(
          event,
          'tool.start.args',
          `${(error as Error).message}; written as [unserializable], as the reference writer does`,
        );
      }
      const summary = hepArgsSummary(event.args, this.mode);
      if (this.mode === 'summary') {
        this.loss.report(
          event,
          'tool.start.args',
          'summary mode writes key=value text that cannot be read back as an args object (use args: "full")',
        );
      } else if (summary.length > HEP_FULL_ARGS_CAP) {
        this.loss.report(event, 'tool.start.args', 'args longer than 4000 characters are cut (…(+N chars))');
      }
      return summary;
    }
    return this.mode === 'full' ? '{}' : '';
  }

  // A tool.end without text (a live nativeharness tool_result, say) gets the output streamed for
  // its call: turn_done's text is the tool's output. Only what the 2000 bound keeps is held, plus
  // the count for the …(+N chars) marker, so memory stays bounded.
  private collectOutput(call: string, text: string): void {
    let held = this.outputs.get(call);
    if (held === undefined) {
      if (this.outputs.size >= 1024) return; // calls that never end: stop collecting, not growing
      held = { text: '', length: 0 };
      this.outputs.set(call, held);
    }
    if (held.text.length <= HEP_TOOL_RESULT_TEXT_CAP) {
      held.text += text.slice(0, HEP_TOOL_RESULT_TEXT_CAP + 1 - held.text.length);
    }
    held.length += text.length;
  }

  private toolResult(event: AgentEventOf<'tool.end'>): string {
    let text = event.text;
    const streamed = this.outputs.get(event.call);
    this.outputs.delete(event.call);
    if (text === undefined && streamed !== undefined && streamed.length > 0) {
      text =
        streamed.length > HEP_TOOL_RESULT_TEXT_CAP
          ? `${streamed.text.slice(0, HEP_TOOL_RESULT_TEXT_CAP)}…(+${streamed.length - HEP_TOOL_RESULT_TEXT_CAP} chars)`
          : streamed.text;
    }
    if (text === undefined) {
      if (typeof event.error === 'string' && event.error !== '') text = event.error;
      else if (event.result !== undefined) {
        assertEncodable(event.result, 'tool.end.result', undefined, 'hep');
        text =
          typeof event.result === 'string'
            ? event.result
            : event.result === null
              ? ''
              : (JSON.stringify(event.result) ?? '');
      } else text = '';
    } else if (event.error !== undefined && event.error !== null && event.error !== '') {
      this.loss.report(
        event,
        'tool.end.error',
        'HEP tool results carry one text; the error text was not written',
      );
    }
    const pieces: Array<[string, string]> = [
      ['id', str(event.call, 'tool.end.call')],
      ['name', str(event.name ?? '', 'tool.end.name')],
      ['ok', event.ok ? 'true' : 'false'],
      ['text', str(boundText(text, HEP_TOOL_RESULT_TEXT_CAP), 'tool.end.text')],
    ];
    return joinRecord(pieces, this.restOf(event), encodeValue, 'hep');
  }

  private turnDone(
    event: AgentEventOf<'round.end'> | undefined,
    message: string,
    stopReason: string | undefined,
    usage: { input?: number; output?: number; costUsd?: number } | undefined,
  ): string {
    const id = event === undefined ? (this.openTurnId ??= this.nextTurnId++) : this.turnId(event);
    const results = `[${this.results.join(',')}]`;
    this.results = [];
    this.closeRound();
    const hints = hintsOf(event);
    const usagePieces: Array<[string, string]> = [
      ['input', formatInteger(usage?.input ?? 0, 'usage.input')],
      ['output', formatInteger(usage?.output ?? 0, 'usage.output')],
      ['cost', formatDouble(usage?.costUsd ?? 0, 'usage.costUsd', 'hep')],
    ];
    const usageText = joinRecord(
      usagePieces,
      hints === undefined
        ? undefined
        : {
            extra: hints.usageExtra,
            order: hints.usageOrder,
          },
      encodeValue,
      'hep',
    );
    return this.frame(
      'turn_done',
      [
        ['turn_id', formatInteger(id, 'turn_id')],
        ['message', str(message, 'round.end.message')],
        ['tool_results', results],
        ['usage', usageText],
        ['stop_reason', str(stopReason ?? 'stop', 'round.end.stopReason')],
      ],
      event,
    );
  }

  // A terminal error or cancel ends the round without tool_results: say what is dropped.
  private flushResultsAsLoss(event: AgentEvent): string {
    if (this.results.length > 0) {
      this.loss.report(
        event,
        'tool.end',
        `${this.results.length} tool result(s) of a round that ended in ${event.type} have no place in HEP (turn_error and cancelled carry no tool_results)`,
      );
      this.results = [];
      this.heldChars = 0;
    }
    return '';
  }

  private unknownRecord(event: AgentEventOf<'unknown'>): string {
    const record = event.record;
    if (!isJsonObject(record) || typeof record.type !== 'string') {
      this.loss.report(event, 'unknown.record', 'HEP frames are JSON objects with a string "type"');
      return '';
    }
    if (event.provenance !== undefined && event.provenance.format !== 'hep') {
      this.loss.foreignRecord(event, 'HEP frame');
      return '';
    }
    assertEncodable(record, 'unknown.record', undefined, 'hep');
    return `${this.asWritten(JSON.stringify(record), event)}\n`;
  }

  // No fields of its own or kept line to restore: the frame is the text frame() builds from its
  // pieces, so the frequent frames are written as one template (wire.ts), with no piece arrays
  // (docs/performance.md, "Figures behind source comments").
  private plain(event: AgentEvent): boolean {
    const p = event.provenance;
    return (
      p === undefined ||
      p.format !== 'hep' ||
      (p.extra === undefined && p.order === undefined && p.hints === undefined)
    );
  }

  private restOf(event: AgentEvent): { extra?: JsonObject; order?: string[] } | undefined {
    const p = event.provenance;
    if (p === undefined || p.format !== 'hep' || (p.extra === undefined && p.order === undefined))
      return undefined;
    return { extra: p.extra, order: p.order } as { extra?: JsonObject; order?: string[] };
  }

  // The line as the decoder kept it (`hints.raw`: a Dart `1.0` in an unknown field, say), while
  // the event still says what that line says; else `text`.
  private asWritten(text: string, event: AgentEvent): string {
    const hints = hintsOf(event);
    return hints === undefined ? text : rawIfSame(hints.raw, text);
  }

  private frame(type: string, pieces: Array<[string, string]>, event: AgentEvent | undefined): string {
    const rest = event === undefined ? undefined : this.restOf(event);
    if (rest === undefined) {
      // The common case: known keys in the reference order. HEP keys are plain ASCII names that
      // JSON needs no escapes for, so the text is concatenated directly.
      let text = `{"type":"${type}"`;
      for (let i = 0; i < pieces.length; i++) {
        const piece = pieces[i]!;
        text += `,"${piece[0]}":${piece[1]}`;
      }
      text += '}';
      // Only a turn_done with fields of its own in a tool result or usage has a kept line here.
      return `${event === undefined ? text : this.asWritten(text, event)}\n`;
    }
    pieces.unshift(['type', `"${type}"`]);
    return `${this.asWritten(joinRecord(pieces, rest, encodeValue, 'hep'), event!)}\n`;
  }
}
