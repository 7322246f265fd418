import { writeOrReport } from '../convert-stream';
import { createDiagnosticSink, type Diagnostic, type DiagnosticHandler } from '../diagnostics';
import { createNhEncoder, type NhEncodeOptions } from '../formats/nativeharness/encode';
import type { AgentEvent } from '../model';

/** One persisted envelope: its seq, type and compact JSON text. */
export interface NhLogEntry {
  seq: number;
  type: string;
  json: string;
}

/** The answer the server gives a cursor older than what the log keeps. */
export interface SessionGap {
  /** The cursor asked for. */
  after: number;
  /** The first seq still stored. */
  next: number;
}

/** What a log holds after a cursor, read at one instant. */
export interface SessionSnapshot {
  /** The stored entries with `seq` above the cursor (after the gap, when there is one), in order. */
  entries: NhLogEntry[];
  /** Present when entries after the cursor are no longer stored (retention). */
  gap?: SessionGap;
  /** The session is finished: `entries` end with its last event and no more will come. */
  closed: boolean;
  /** The seq this snapshot reaches: where {@link SessionLog.follow} continues from. */
  last: number;
  /**
   * The session's last seq: the highest it has stored, entries since dropped by retention
   * included (0 for a session with none yet). A cursor above it was never an event id of this
   * session's stream (another session's, or a log that was lost and began again): the server
   * refuses it (`409` with `{"error":"unknown_cursor","after":N,"last":head}`) rather than
   * follow from there, which would skip every event up to it or wait for ever. Absent: the log
   * does not say, and the cursor is taken as given. Both logs agentwire ships set it.
   */
  head?: number;
}

/**
 * Why a follow from `after` cannot be served, or `undefined` when it can: the cursor is above
 * the session's last seq (`head`), so following from it would skip the entries up to it
 * without a word.
 */
export function cursorAhead(session: string, after: number, head: number): string | undefined {
  if (after <= head) return undefined;
  return `cursor ${after} is past the last seq of session ${session} (${head}): not an event id of its stream`;
}

/** Receives a followed session's entries, in `seq` order, each once. */
export interface SessionFollower {
  /**
   * The next stored entry. Returning `false` stops the delivery at once, as calling the function
   * `follow` returned would (which a follower cannot do while `follow` is still delivering the
   * entries it had stored): a reader that cannot take more stops there and follows again from
   * its last entry later. Any other value, or none, goes on.
   */
  entry(entry: NhLogEntry): unknown;
  /** The session was closed: no entry follows. */
  end(): void;
  /**
   * The log cannot go on for this follower (storage unreachable for longer than the log's retry
   * window, entries after its cursor trimmed before it read them, a cursor past the session's
   * last seq). Nothing follows; a reader resumes by reading again from its cursor (for SSE:
   * the client reconnects).
   */
  error(error: Error): void;
}

/**
 * The event log a session server serves: what {@link createSseHandler} needs, implemented in
 * memory by `NhSessionLog` (`agentwire/node`) and on Redis Streams by `RedisSessionLog`
 * (`agentwire/redis`). Entries are nativeharness envelopes; `seq` is allocated by the log, one
 * counter per session, and is the SSE event id. Two rules every implementation keeps:
 *
 * - **persist, then emit**: `read` and `follow` return only entries that are stored, and an
 *   `append` resolves only once its entries are stored;
 * - **every entry once, in order**: `follow(…, after)` delivers exactly the stored entries with
 *   `seq > after`, in `seq` order (or ends with `error` when it cannot).
 */
export interface SessionLog {
  /**
   * Appends canonical events to a session (created on first use), encoded as envelopes with the
   * session's next seqs. Resolves to the entries written once they are stored; rejects when
   * the session is closed or storage fails for good.
   */
  append(workspace: string, session: string, events: Iterable<AgentEvent>): Promise<NhLogEntry[]>;
  /** Marks a session finished: followers end after its last entry. */
  close(workspace: string, session: string): Promise<void>;
  /**
   * Reads the entries after `after` (a seq; 0 for all), with the gap signal when the cursor is
   * older than what is kept. `undefined` when the session does not exist. Of a session that is
   * not closed, a log may return the first entries only (a page): readers go on from `last`.
   */
  read(workspace: string, session: string, after: number): Promise<SessionSnapshot | undefined>;
  /**
   * Delivers every stored entry with `seq > after`, then live ones, to `follower` until the
   * session closes, the log fails, or the returned function is called. agentwire's logs end a
   * follow whose cursor is above the session's last seq with `error` (see
   * {@link SessionSnapshot.head}).
   */
  follow(workspace: string, session: string, after: number, follower: SessionFollower): () => void;
}

/** What {@link createEntryEncoder} needs. */
export interface EntryEncoderOptions {
  workspace: string;
  session: string;
  /** The seq of the first entry (the session's stored last + 1). */
  startSeq: number;
  /** Clock for events without `ts`. Default `Date.now`. */
  clock?: (() => number) | undefined;
  /** Receives the writer's `loss` reports for events from other formats. */
  onDiagnostic?: DiagnosticHandler | undefined;
  /** Write with agentwire's nativeharness extension (`NhEncodeOptions.extensions`). */
  extensions?: boolean | undefined;
}

/**
 * The one way a session log turns canonical events into entries: the nativeharness writer in
 * conforming JSON Lines mode, seqs continuing from `startSeq`. Stateful (open turns, hops), so
 * a log keeps one per session it writes.
 */
export function createEntryEncoder(options: EntryEncoderOptions): (event: AgentEvent) => NhLogEntry[] {
  const { workspace, session } = options;
  const encodeOptions: NhEncodeOptions = {
    framing: 'jsonl',
    workspace,
    session,
    startSeq: options.startSeq,
    conform: true,
  };
  if (options.clock !== undefined) encodeOptions.clock = options.clock;
  if (options.extensions === true) encodeOptions.extensions = true;
  const encoder = createNhEncoder(encodeOptions, createDiagnosticSink(false, options.onDiagnostic));
  const refusal = {
    to: 'nativeharness' as const,
    report: (d: Diagnostic) => options.onDiagnostic?.(d),
    strict: false,
  };
  return (event) => {
    const entries: NhLogEntry[] = [];
    // An event the writer refuses (a replayed envelope whose seq the log already has) is reported
    // at its input line and left out; the session goes on.
    const text = writeOrReport(encoder, { ...event, workspace, session }, refusal);
    for (const json of text.split('\n')) {
      if (json === '') continue;
      const r = JSON.parse(json) as { seq: number; type: string };
      entries.push({ seq: r.seq, type: r.type, json });
    }
    return entries;
  };
}

/**
 * The index of the first entry whose `seq` is above `after`, in entries stored in `seq` order:
 * by bisection, so a reader that stops and goes on from its cursor (a slow SSE client) costs
 * what it reads, not the whole log each time.
 */
export function firstAfter(entries: readonly { seq: number }[], after: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]!.seq <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
