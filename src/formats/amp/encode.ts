import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import { randomId } from '../../ids';
import { assertEncodable, encodeJson, isJsonObject, type JsonObject, rawIfSame } from '../../json';
import { LossReporter } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { AMP_SUCCESS, type AmpHints, isMappedAssistantBlock, isMappedUserBlock, mergeBlocks } from './wire';

/** Options of the Amp writer. */
export interface AmpEncodeOptions extends EncodeOptions {
  /** `session_id` for events without `session`. Default `T-` and an id from `idSource`. */
  session?: string;
  /** Makes the thread id when none is given. Default `crypto.randomUUID()`. */
  idSource?: () => string;
}

const FORMAT = 'amp' as const;

const json = (value: unknown, field: string): string => encodeJson(value, field, FORMAT);
// A count JSON cannot hold (not finite) is an AgentwireError naming the field.
function count(n: number | undefined, field: string): number | undefined {
  if (n !== undefined && !Number.isFinite(n)) assertEncodable(n, field, undefined, FORMAT);
  return n;
}

// Fields each event type carries into Amp; anything else present is reported as a loss.
const ENV = ['session', 'lane', 'round'];
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': [...ENV, 'cwd', 'tools'],
  'run.start': [...ENV, 'input'],
  'run.end': [...ENV, 'status', 'reason', 'durationMs', 'answer', 'error', 'usage'],
  'round.end': [...ENV, 'message', 'stopReason', 'usage'],
  usage: [...ENV, 'usage'],
  'message.start': [...ENV, 'role'],
  'message.end': ENV,
  'text.delta': [...ENV, 'text'],
  'reasoning.delta': [...ENV, 'text', 'signature', 'redacted'],
  'user.message': [...ENV, 'text'],
  'tool.start': [...ENV, 'call', 'name', 'args'],
  'tool.end': [...ENV, 'call', 'name', 'ok', 'text', 'result', 'error'],
  'child.start': [...ENV, 'child', 'call', 'name'],
  'child.end': [...ENV, 'child', 'status', 'result'],
  unknown: [...ENV, 'record', 'recordType'],
};

const TEXT_CARRIED = CARRIED['text.delta'] as readonly string[];

/**
 * Whether another format's text deltas that extend the text block the last delta left are
 * joined by the shortcut (`joinDelta`) instead of the general path. Off, only the general path
 * runs; the property test in test/amp/writer-join.test.ts holds the two equal.
 */
export const AMP_JOIN_SHORTCUT: { enabled: boolean } = { enabled: true };

/** A `user` or `assistant` line being gathered from the events of one record. */
interface Pending {
  kind: 'user' | 'assistant';
  blocks: JsonObject[];
  /** The line the events came from (events of this format), or undefined (built from the model). */
  line: number | undefined;
  hints: AmpHints | undefined;
  lane: string | undefined;
  session: string | undefined;
  /** For assistant lines: the round's end, which carries the stop reason and usage. */
  end?: AgentEventOf<'round.end'>;
}

/** A lane's gathered lines: its assistant message and the tool results that follow it. */
interface Slot {
  assistant?: Pending | undefined;
  results?: Pending | undefined;
  /** The lane's message was written before its round ended (another lane's lines came). */
  early?: boolean;
  /** Another format's call usage was written on its own line since the lane's last round. */
  usageSaid?: boolean;
}

/**
 * The Amp stream-json writer: canonical events → `system`/`user`/`assistant`/`result` lines.
 * The events of one line (the content blocks of an assistant message, the tool results of a user
 * message) are gathered and written as that line when the next line's events begin; lines read
 * from Amp come back byte for byte while their events are unchanged.
 */
export class AmpEncoder implements Encoder {
  private readonly options: AmpEncodeOptions;
  private readonly loss: LossReporter;
  private session: string | undefined;
  // The lines being gathered, per lane ('' for the main agent): a subagent's lines interleave
  // with its parent's, and each lane's message and results are written in their own order.
  private readonly slots = new Map<string, Slot>();
  private readonly callOf = new Map<string, string>();
  // Text blocks built from another format's deltas, which the next delta extends.
  private readonly joinable = new WeakSet<JsonObject>();
  private rounds = 0;
  // The input and output the run's assistant lines carried (its result's total is the sum).
  private lineInput = 0;
  private lineOutput = 0;
  // Text a call made while gathering must put out before whatever the event writes.
  private before = '';
  // The text block the last event (another format's text delta) left last in its lane's gathered
  // message, with nothing else gathered anywhere: the next delta of that lane extends it without
  // the general path's look at every lane (`joinDelta`). Cleared by any other event.
  private joinTo: JsonObject | undefined = undefined;
  private joinLane: string | undefined = undefined;

  /** Creates a writer reporting losses to `sink`. */
  constructor(options: AmpEncodeOptions, sink: DiagnosticSink) {
    this.options = options;
    this.loss = new LossReporter(FORMAT, sink);
  }

  write(event: AgentEvent): string {
    if (this.joinTo !== undefined && this.joinDelta(event)) return '';
    const carried = CARRIED[event.type];
    if (carried !== undefined) this.loss.check(event, carried);
    const p = event.provenance;
    const own = p?.format === FORMAT;
    // Derived on reading (a run nobody announced, a subagent lane, a round's end after its tool
    // results, a stream without result): the lines they came from are written by their own events.
    if (own && p.synthetic === true) {
      // A derived round end still closes the round being gathered (its lines are complete).
      return event.type === 'round.end' ? this.flush() : '';
    }
    const hints = own ? (p.hints as AmpHints | undefined) : undefined;
    const line = own ? p.line : undefined;
    const head = own ? this.flushOther(line) : '';
    const text = this.dispatch(event, own, line, hints);
    const out = head + this.before + text;
    this.before = '';
    return out;
  }

  private dispatch(
    event: AgentEvent,
    own: boolean,
    line: number | undefined,
    hints: AmpHints | undefined,
  ): string {
    const text = '';
    switch (event.type) {
      case 'session.start':
        return text + this.flush() + this.init(event, hints);
      case 'run.start':
        this.rounds = 0;
        this.lineInput = 0;
        this.lineOutput = 0;
        if (event.input === undefined) return text;
        return text + this.flush() + this.userText(event, event.input, hints);
      case 'user.message':
        if (own) {
          this.pending(event, line, hints).blocks.push(this.block(hints, { type: 'text', text: event.text }));
          return text;
        }
        return text + this.flush() + this.userText(event, event.text, undefined);
      case 'text.delta': {
        const a = this.pendingAssistant(event, line, hints);
        const last = a.blocks[a.blocks.length - 1];
        // Amp writes a message's text whole, one block: another format's deltas are joined.
        if (!own && last !== undefined && last.type === 'text' && this.joinable.has(last)) {
          last.text = `${last.text as string}${event.text}`;
          this.joinTo = last;
          this.joinLane = event.lane;
          return text;
        }
        const b = this.block(hints, { type: 'text', text: event.text });
        a.blocks.push(b);
        if (!own) {
          this.joinable.add(b);
          this.joinTo = b;
          this.joinLane = event.lane;
        }
        return text;
      }
      case 'reasoning.delta': {
        const b: JsonObject =
          event.redacted !== undefined
            ? { type: 'redacted_thinking', data: event.redacted }
            : { type: 'thinking', thinking: event.text };
        if (event.redacted === undefined && event.signature !== undefined) b.signature = event.signature;
        this.pendingAssistant(event, line, hints).blocks.push(this.block(hints, b));
        return text;
      }
      case 'tool.start': {
        if (!own && event.args !== undefined)
          assertEncodable(event.args, 'tool.start.args', undefined, FORMAT);
        const b: JsonObject = { type: 'tool_use', id: event.call, name: event.name, input: event.args ?? {} };
        this.pendingAssistant(event, line, hints).blocks.push(this.block(hints, b));
        return text;
      }
      case 'tool.end': {
        const content =
          event.text ??
          (event.result === undefined || event.result === null
            ? typeof event.error === 'string'
              ? event.error
              : ''
            : json(event.result, 'tool.end.result'));
        this.pending(event, line, hints).blocks.push(this.toolResult(hints, event.call, content, !event.ok));
        return text;
      }
      case 'round.end': {
        // Tool results gathered before a round's end are that round's: they follow its message.
        const slot = this.lane(event, own);
        if (slot.usageSaid === true) {
          // A subagent round's usage sums its calls' usage, which had their lines: not said twice.
          slot.usageSaid = false;
          if (slot.assistant === undefined && event.lane !== undefined && !own)
            return text + this.flushResults(slot);
        }
        if (slot.assistant === undefined && slot.early === true) {
          slot.early = false;
          if (event.usage !== undefined || event.stopReason !== undefined)
            this.loss.report(
              event,
              'round.end.usage',
              `${FORMAT} wrote the round's message before its end (a subagent's lines came between): its usage and stop reason have no line left`,
            );
          return text + this.flushResults(slot);
        }
        slot.assistant ??= this.start('assistant', event, line, hints);
        slot.assistant.end = event;
        return text + this.flushSlot(slot);
      }
      case 'run.end':
        return text + this.flush() + this.result(event, hints);
      case 'unknown':
        return text + this.flush() + this.unknown(event, own, hints);
      case 'usage':
        // A subagent line's call usage: the line it came from is written by its blocks.
        if (own) return text;
        // A subagent's call usage ends its message (a subagent has no rounds of its own).
        if (event.lane !== undefined && event.usage.scope !== 'thread') {
          const slot = this.lane(event, false);
          if (slot.assistant !== undefined) {
            // The reader keeps a subagent line's usage as an event only from a line that says
            // nothing else: on the message's line it would stay in the line, lost when read back.
            // A running count (`final: false`, said as a message starts) stays on the line.
            let lines = text;
            if (slot.assistant.blocks.length > 0 && event.usage.final !== false) {
              lines += this.flushAssistant(slot);
              slot.assistant = this.start('assistant', event, undefined, undefined);
            }
            slot.assistant.end = { type: 'round.end', message: '', usage: event.usage };
            slot.usageSaid = true;
            return lines + this.flushAssistant(slot);
          }
        }
        this.loss.report(event, 'usage', `${FORMAT} has usage only on assistant lines (round.end.usage)`);
        return text;
      case 'message.start':
      case 'message.end':
        // Implied: an assistant line is one message.
        return text;
      case 'child.start':
        // A lane another format names by its own id is written as the spawning call's (Amp's).
        if (!own && event.call !== undefined) this.callOf.set(event.child, event.call);
        return text;
      case 'child.end':
        // Amp has no record for them: a subagent's lines carry its lane as parent_tool_use_id.
        return text;
      default:
        this.loss.report(event, event.type, `${FORMAT} has no record for ${event.type}`);
        return text;
    }
  }

  end(): string {
    this.joinTo = undefined;
    return this.flush();
  }

  // Another format's text delta right after one that left `joinTo` last in the same lane: what
  // the general path would do (no other lane holds anything, this lane gathers no results, the
  // last block is the joinable text), without looking. The event is checked for losses still.
  private joinDelta(event: AgentEvent): boolean {
    const to = this.joinTo;
    this.joinTo = undefined;
    if (
      to === undefined ||
      event.type !== 'text.delta' ||
      event.lane !== this.joinLane ||
      event.provenance?.format === FORMAT ||
      !AMP_JOIN_SHORTCUT.enabled
    )
      return false;
    this.loss.check(event, TEXT_CARRIED);
    to.text = `${to.text as string}${event.text}`;
    this.joinTo = to;
    return true;
  }

  private sessionOf(event: AgentEvent): string {
    this.session =
      event.session ?? this.session ?? this.options.session ?? `T-${(this.options.idSource ?? randomId)()}`;
    return this.session;
  }

  private slot(lane: string | undefined): Slot {
    const key = lane ?? '';
    let slot = this.slots.get(key);
    if (slot === undefined) this.slots.set(key, (slot = {}));
    return slot;
  }

  // An event of this format from another line: the lines gathered so far are complete.
  private flushOther(line: number | undefined): string {
    let text = '';
    for (const slot of this.slots.values()) {
      if (slot.assistant !== undefined && slot.assistant.line !== line) text += this.flushAssistant(slot);
      if (slot.results !== undefined && slot.results.line !== line) text += this.flushResults(slot);
    }
    return text;
  }

  private flushSlot(slot: Slot): string {
    return this.flushAssistant(slot) + this.flushResults(slot);
  }

  private flush(): string {
    let text = '';
    for (const slot of this.slots.values()) text += this.flushSlot(slot);
    this.slots.clear();
    return text;
  }

  /**
   * The slot of an event's lane. Another format's events of one lane mean the other lanes' lines
   * so far are complete (Amp writes a lane's lines where they happen): those are written first.
   */
  private lane(event: AgentEvent, own: boolean): Slot {
    const slot = this.slot(event.lane);
    if (own) return slot;
    for (const other of this.slots.values()) {
      if (other === slot || (other.assistant === undefined && other.results === undefined)) continue;
      if (other.assistant !== undefined) other.early = true;
      this.before += this.flushSlot(other);
    }
    return slot;
  }

  private pending(event: AgentEvent, line: number | undefined, hints: AmpHints | undefined): Pending {
    const slot = this.lane(event, line !== undefined);
    slot.results ??= this.start('user', event, line, hints);
    return slot.results;
  }

  // A new assistant message: tool results gathered before it answered the one before.
  private pendingAssistant(
    event: AgentEvent,
    line: number | undefined,
    hints: AmpHints | undefined,
  ): Pending {
    const slot = this.lane(event, line !== undefined);
    // Another format without rounds (or with several messages a round): content after tool
    // results is the next message, the one before is complete (its round's end, if one comes,
    // lands on the last).
    if (line === undefined && slot.assistant !== undefined && slot.results !== undefined) {
      this.before += this.flushAssistant(slot);
    }
    if (slot.assistant === undefined) {
      slot.early = false;
      this.before += this.flushResults(slot);
      slot.assistant = this.start('assistant', event, line, hints);
    }
    return slot.assistant;
  }

  private start(
    kind: Pending['kind'],
    event: AgentEvent,
    line: number | undefined,
    hints: AmpHints | undefined,
  ): Pending {
    const lane = event.lane === undefined ? undefined : (this.callOf.get(event.lane) ?? event.lane);
    return { kind, blocks: [], line, hints, lane, session: this.sessionOf(event) };
  }

  /** A content block: the kept one with the model's fields set (its own others in place). */
  private block(hints: AmpHints | undefined, b: JsonObject): JsonObject {
    const kept = hints?.block;
    if (kept === undefined || kept.type !== b.type) return b;
    const out: JsonObject = { ...kept };
    for (const k of Object.keys(b)) out[k] = b[k];
    return out;
  }

  private toolResult(
    hints: AmpHints | undefined,
    call: string,
    content: string,
    isError: boolean,
  ): JsonObject {
    const kept = hints?.block;
    if (kept !== undefined && kept.type === 'tool_result') {
      const out: JsonObject = { ...kept, tool_use_id: call };
      // Content given as text blocks stays blocks while it says the same text.
      const same =
        typeof kept.content === 'string'
          ? kept.content === content
          : Array.isArray(kept.content) &&
            kept.content
              .map((x) => (isJsonObject(x) && typeof x.text === 'string' ? x.text : ''))
              .join('') === content;
      if (!same) out.content = content;
      if (kept.is_error !== undefined || isError) out.is_error = isError;
      return out;
    }
    return { type: 'tool_result', tool_use_id: call, content, is_error: isError };
  }

  private flushAssistant(slot: Slot): string {
    const a = slot.assistant;
    if (a === undefined) return '';
    slot.assistant = undefined;
    if (a.lane === undefined) this.rounds++;
    const kept = isJsonObject(a.hints?.record?.message) ? (a.hints.record.message as JsonObject) : undefined;
    const message: JsonObject = kept === undefined ? { type: 'message', role: 'assistant' } : { ...kept };
    message.content = Array.isArray(kept?.content)
      ? mergeBlocks(kept.content, a.blocks, isMappedAssistantBlock)
      : a.blocks;
    const end = a.end;
    if (end !== undefined) {
      if (end.stopReason !== undefined) message.stop_reason = end.stopReason;
      else if (kept === undefined || kept.stop_reason !== null) delete message.stop_reason;
      if (end.usage !== undefined) {
        message.usage = this.usage(end.usage, isJsonObject(kept?.usage) ? kept.usage : undefined);
        // The decoder totals every line of the run, its subagents' too.
        this.lineInput += end.usage.input ?? 0;
        this.lineOutput += end.usage.output ?? 0;
      } else delete message.usage;
    }
    return this.line(a, 'assistant', message);
  }

  private flushResults(slot: Slot): string {
    const u = slot.results;
    if (u === undefined) return '';
    slot.results = undefined;
    const kept = isJsonObject(u.hints?.record?.message) ? (u.hints.record.message as JsonObject) : undefined;
    const message: JsonObject = kept === undefined ? { role: 'user' } : { ...kept };
    // A prompt written as a plain string stays one while it is one text block.
    const only = u.blocks.length === 1 ? u.blocks[0]! : undefined;
    if (typeof kept?.content === 'string' && only?.type === 'text' && Object.keys(only).length === 2)
      message.content = only.text;
    else
      message.content = Array.isArray(kept?.content)
        ? mergeBlocks(kept.content, u.blocks, isMappedUserBlock)
        : u.blocks;
    return this.line(u, 'user', message);
  }

  /** Writes a `user`/`assistant` line: the kept record with its message replaced. */
  private line(pending: Pending, type: 'user' | 'assistant', message: JsonObject): string {
    const kept = pending.hints?.record;
    let record: JsonObject;
    if (kept !== undefined && kept.type === type) {
      record = { ...kept, message };
      if ('parent_tool_use_id' in kept || pending.lane !== undefined)
        record.parent_tool_use_id = pending.lane ?? null;
      if ('session_id' in kept) record.session_id = pending.session;
    } else {
      record = { type, message, parent_tool_use_id: pending.lane ?? null, session_id: pending.session };
    }
    return this.out(record, pending.hints);
  }

  private out(record: JsonObject, hints: AmpHints | undefined): string {
    return `${rawIfSame(hints?.raw, json(record, String(record.type)))}\n`;
  }

  private usage(u: Usage, kept: JsonObject | undefined): JsonObject {
    const read = count(u.cacheRead, 'usage.cacheRead');
    const write = count(u.cacheWrite, 'usage.cacheWrite');
    const input = count(u.input, 'usage.input');
    const own: Array<[string, number | undefined]> = [
      ['input_tokens', input === undefined ? undefined : input - (read ?? 0) - (write ?? 0)],
      ['cache_creation_input_tokens', write],
      ['cache_read_input_tokens', read],
      ['output_tokens', count(u.output, 'usage.output')],
    ];
    const out: JsonObject = kept === undefined ? {} : { ...kept };
    for (const [k, v] of own) {
      if (v === undefined) delete out[k];
      else out[k] = v;
    }
    if (u.costUsd !== undefined)
      this.loss.report({ type: 'usage', usage: u }, 'usage.costUsd', `${FORMAT} reports no cost`);
    return out;
  }

  private init(event: AgentEventOf<'session.start'>, hints: AmpHints | undefined): string {
    const kept = hints?.record;
    const session = this.sessionOf(event);
    if (kept !== undefined && kept.type === 'system') {
      const record: JsonObject = { ...kept, session_id: session };
      if (event.cwd !== undefined) record.cwd = event.cwd;
      if (event.tools !== undefined) record.tools = event.tools;
      return this.out(record, hints);
    }
    const record: JsonObject = {
      type: 'system',
      subtype: 'init',
      cwd: event.cwd ?? '',
      session_id: session,
      tools: event.tools ?? [],
      mcp_servers: [],
    };
    return this.out(record, undefined);
  }

  private userText(event: AgentEvent, text: string, hints: AmpHints | undefined): string {
    const pending = this.start('user', event, undefined, hints);
    const keptMessage = isJsonObject(hints?.record?.message) ? hints.record.message : undefined;
    const keptBlock = Array.isArray(keptMessage?.content)
      ? keptMessage.content.find((b) => isJsonObject(b) && b.type === 'text')
      : undefined;
    pending.blocks.push(
      this.block(isJsonObject(keptBlock) ? { block: keptBlock } : undefined, { type: 'text', text }),
    );
    return this.flushResults({ results: pending });
  }

  private result(event: AgentEventOf<'run.end'>, hints: AmpHints | undefined): string {
    if (event.status === 'incomplete') return '';
    if (event.status === 'cancelled')
      this.loss.report(
        event,
        'run.end.status',
        `${FORMAT} has no cancelled result: written as an error result`,
      );
    const ok = event.status === 'completed';
    const kept = hints?.record;
    const record: JsonObject = kept !== undefined && kept.type === 'result' ? { ...kept } : {};
    // Amp's own words only (`success`, `error_*`): another format's reason would read as another outcome.
    const ampWord =
      event.reason !== undefined &&
      (kept?.subtype === event.reason ||
        ((event.reason === AMP_SUCCESS) === ok && (ok || event.reason.startsWith('error'))));
    if (event.reason !== undefined && !ampWord)
      this.loss.report(event, 'run.end.reason', `${FORMAT} has only success and error_* subtypes`);
    const subtype = ampWord ? event.reason : ok ? AMP_SUCCESS : 'error_during_execution';
    const text = ok ? (event.answer ?? '') : (event.error ?? event.answer ?? '');
    const set: Array<[string, unknown]> = [
      ['type', 'result'],
      ['subtype', subtype],
      [
        'duration_ms',
        count(event.durationMs, 'run.end.durationMs') ?? (kept === undefined ? 0 : record.duration_ms),
      ],
      ['is_error', !ok],
      ['num_turns', kept === undefined ? this.rounds : record.num_turns],
    ];
    // An error result the SDK spelled with `error` keeps it; the sample lines have `result`.
    if (!ok && typeof record.error === 'string') set.push(['error', text]);
    else set.push(['result', text]);
    set.push(['session_id', this.sessionOf(event)]);
    // A run's total that no assistant line carried (another format has usage per run only, or
    // rounds without it): the SDK's optional `result.usage`.
    const total = event.usage;
    if (
      kept === undefined &&
      total !== undefined &&
      this.lineInput === 0 &&
      this.lineOutput === 0 &&
      ((total.input ?? 0) !== 0 || (total.output ?? 0) !== 0)
    )
      set.push(['usage', this.usage(total, undefined)]);
    for (const [k, v] of set) {
      if (v === undefined) delete record[k];
      else record[k] = v;
    }
    this.rounds = 0;
    this.lineInput = 0;
    this.lineOutput = 0;
    return this.out(record, hints);
  }

  private unknown(event: AgentEventOf<'unknown'>, own: boolean, hints: AmpHints | undefined): string {
    if (!own || !isJsonObject(event.record)) {
      this.loss.report(event, 'unknown', `${FORMAT} writes back only records read from ${FORMAT}`);
      return '';
    }
    return this.out(event.record, hints);
  }
}
