import type { IncomingMessage, ServerResponse } from 'node:http';
import { createDiagnosticSink, type Diagnostic, type DiagnosticHandler, diagnosticAt } from '../diagnostics';
import { validateNhEnvelope } from '../formats/nativeharness/wire';
import { LineSplitter } from '../framing/lines';
import { formatSseEvent } from '../framing/sse';
import { DEFAULT_MAX_DEPTH, isJsonObject, parseJsonLine } from '../json';
import type { AgentEvent } from '../model';
import {
  createEntryEncoder,
  cursorAhead,
  firstAfter,
  type NhLogEntry,
  type SessionFollower,
  type SessionLog,
  type SessionSnapshot,
} from './session-log';

export type { NhLogEntry } from './session-log';

/** Options of {@link NhSessionLog}. */
export interface NhSessionLogOptions {
  /**
   * Writes one envelope line (compact JSON, no newline) to durable storage, e.g. appends it to
   * the session's `.jsonl` file. Awaited before the event reaches any subscriber.
   */
  persist?: (workspace: string, session: string, json: string) => void | Promise<void>;
  /** Most events kept per session; older ones are dropped and a resume before them is a gap. */
  retain?: number;
  /** Clock for events without `ts`. Default `Date.now`. */
  clock?: () => number;
  /** Receives the writer's `loss` reports for appended events from other formats. */
  onDiagnostic?: DiagnosticHandler;
  /**
   * Write appended events with agentwire's extension (`NhEncodeOptions.extensions`): what
   * nativeharness has no place for (reasoning, lanes, notices, …) reaches `connect()` readers.
   */
  extensions?: boolean;
}

interface SessionState {
  workspace: string;
  session: string;
  entries: NhLogEntry[];
  /** Highest seq dropped by retention (0 = nothing dropped). */
  dropped: number;
  closed: boolean;
  encoder: ((event: AgentEvent) => NhLogEntry[]) | undefined;
  listeners: Set<(entry: NhLogEntry | undefined) => void>;
}

const key = (workspace: string, session: string): string => `${workspace}\u0000${session}`;

// The session's last seq: its last entry's, or the last one retention dropped (0: none yet).
const headOf = (s: SessionState): number => s.entries[s.entries.length - 1]?.seq ?? s.dropped;

/**
 * The persisted event log of nativeharness sessions, in memory, with persist-then-emit: an
 * appended event is handed to `persist` and awaited, then stored, then emitted to live
 * subscribers. Appends to one log are serialised, so `seq` order is the emit order. One process
 * only: `RedisSessionLog` (`agentwire/redis`) is the same {@link SessionLog} shared by several.
 */
export class NhSessionLog implements SessionLog {
  private readonly options: NhSessionLogOptions;
  private readonly sessions = new Map<string, SessionState>();
  private tail: Promise<unknown> = Promise.resolve();

  /** Creates an empty log. */
  constructor(options: NhSessionLogOptions = {}) {
    this.options = options;
  }

  private state(workspace: string, session: string, create: boolean): SessionState | undefined {
    const k = key(workspace, session);
    let s = this.sessions.get(k);
    if (s === undefined && create) {
      s = {
        workspace,
        session,
        entries: [],
        dropped: 0,
        closed: false,
        encoder: undefined,
        listeners: new Set(),
      };
      this.sessions.set(k, s);
    }
    return s;
  }

  /** The session's state for the HTTP handler, or `undefined` when it does not exist. */
  get(workspace: string, session: string): Readonly<SessionState> | undefined {
    return this.state(workspace, session, false);
  }

  /**
   * Loads a persisted JSON Lines log (not persisted again). Lines that are not envelopes are
   * returned as diagnostics and skipped. Returns the diagnostics.
   */
  load(text: string | Uint8Array): Diagnostic[] {
    const diagnostics: Diagnostic[] = [];
    const sink = createDiagnosticSink(false, undefined, diagnostics);
    const splitter = new LineSplitter(
      {
        line: (line, n, offset) => {
          if (line === '') return;
          const parsed = parseJsonLine(line, n, offset, DEFAULT_MAX_DEPTH, 'nativeharness');
          if (!parsed.ok) return sink.report(parsed.diagnostic);
          const problem = isJsonObject(parsed.value) ? validateNhEnvelope(parsed.value) : 'not an object';
          if (problem !== undefined || !isJsonObject(parsed.value)) {
            return sink.report(
              diagnosticAt(
                'invalid_record',
                'error',
                n,
                offset,
                `not an envelope: ${problem}`,
                'nativeharness',
              ),
            );
          }
          const r = parsed.value;
          const s = this.state(r.workspace_id as string, r.session_id as string, true)!;
          this.store(s, { seq: r.seq as number, type: r.type as string, json: line });
        },
        diagnostic: (d) => sink.report(d),
      },
      { format: 'nativeharness' },
    );
    splitter.push(text);
    splitter.end('report');
    return diagnostics;
  }

  /**
   * Appends canonical events to a session (created on first use): encoded as envelopes (seq
   * continuing the session's, `ts` from the event or the clock), persisted, then emitted.
   * Resolves to the entries written.
   */
  append(workspace: string, session: string, events: Iterable<AgentEvent>): Promise<NhLogEntry[]> {
    const run = async (): Promise<NhLogEntry[]> => {
      const s = this.state(workspace, session, true)!;
      if (s.closed) throw new Error(`session ${session} of workspace ${workspace} is closed`);
      if (s.encoder === undefined) {
        s.encoder = createEntryEncoder({
          workspace,
          session,
          startSeq: (s.entries[s.entries.length - 1]?.seq ?? s.dropped) + 1,
          clock: this.options.clock,
          onDiagnostic: this.options.onDiagnostic,
          extensions: this.options.extensions,
        });
      }
      const written: NhLogEntry[] = [];
      for (const event of events) {
        for (const entry of s.encoder(event)) {
          await this.options.persist?.(workspace, session, entry.json);
          this.store(s, entry);
          written.push(entry);
        }
      }
      return written;
    };
    const result = this.tail.then(run);
    this.tail = result.catch(() => {});
    return result;
  }

  /** Marks a session finished: live streams end after its last event; resumes at the end get 204. */
  close(workspace: string, session: string): Promise<void> {
    const result = this.tail.then(() => {
      const s = this.state(workspace, session, true)!;
      s.closed = true;
      for (const listener of s.listeners) listener(undefined);
      s.listeners.clear();
    });
    this.tail = result.catch(() => {});
    return result;
  }

  /** Calls `listener` with each entry stored from now on, and `undefined` when the session closes. */
  subscribe(
    workspace: string,
    session: string,
    listener: (entry: NhLogEntry | undefined) => void,
  ): () => void {
    const s = this.state(workspace, session, true)!;
    s.listeners.add(listener);
    return () => s.listeners.delete(listener);
  }

  /** The entries after `after`, with the gap signal when retention dropped some of them. */
  read(workspace: string, session: string, after: number): Promise<SessionSnapshot | undefined> {
    const s = this.state(workspace, session, false);
    if (s === undefined) return Promise.resolve(undefined);
    const first = s.entries[0]?.seq;
    const head = headOf(s);
    const snapshot: SessionSnapshot = {
      entries: s.entries.filter((e) => e.seq > after),
      closed: s.closed,
      last: Math.max(after, head),
      head,
    };
    if (s.dropped > 0 && after < s.dropped) snapshot.gap = { after, next: first ?? s.dropped + 1 };
    return Promise.resolve(snapshot);
  }

  /** The stored entries after `after` at once, then live ones (see {@link SessionLog.follow}). */
  follow(workspace: string, session: string, after: number, follower: SessionFollower): () => void {
    const s = this.state(workspace, session, true)!;
    if (s.dropped > after) {
      follower.error(new Error(`entries after ${after} of session ${session} are no longer kept`));
      return () => {};
    }
    const ahead = cursorAhead(session, after, headOf(s));
    if (ahead !== undefined) {
      follower.error(new Error(ahead));
      return () => {};
    }
    let cursor = after;
    let stopped = false;
    // False once the follower said it takes no more.
    const deliver = (entry: NhLogEntry): boolean => {
      if (entry.seq > cursor) {
        cursor = entry.seq;
        stopped = follower.entry(entry) === false;
      }
      return !stopped;
    };
    // Entries are stored in seq order: the first one after the cursor is found by bisection, so
    // a follower that stops and follows again (a slow SSE client) costs what it reads, not the
    // whole log each time.
    const entries = s.entries;
    for (let i = firstAfter(entries, after); i < entries.length; i++)
      if (!deliver(entries[i]!)) return () => {};
    if (s.closed) {
      follower.end();
      return () => {};
    }
    const unsubscribe = this.subscribe(workspace, session, (entry) => {
      if (stopped) return;
      if (entry === undefined) follower.end();
      else if (!deliver(entry)) unsubscribe();
    });
    return unsubscribe;
  }

  private store(s: SessionState, entry: NhLogEntry): void {
    s.entries.push(entry);
    const retain = this.options.retain;
    if (retain !== undefined && s.entries.length > retain) {
      const gone = s.entries.splice(0, s.entries.length - retain);
      s.dropped = gone[gone.length - 1]!.seq;
    }
    for (const listener of s.listeners) listener(entry);
  }
}

// One SSE client of a followed session: the last seq written to it, and how to stop following.
interface Following {
  stopped: boolean;
  sent: number;
  halt: () => void;
}

interface FollowContext {
  log: SessionLog;
  res: ServerResponse;
  report: (error: unknown) => void;
  workspace: string;
  session: string;
  client: Following;
  follow: () => void;
}

/**
 * Bytes of SSE the server writes ahead of a client that reads slower than its session grows
 * (`createSseHandler`): past them it stops following the log for that client until the socket
 * drains, then follows again from the last entry sent. A log on Redis opens its follow again
 * then, so the bound is well above a socket's 16 KiB high-water mark.
 */
export const SSE_CLIENT_AHEAD_BYTES = 1024 * 1024;

/**
 * Writes `text` to an SSE client; true while the client may be sent more: its socket took the
 * text, or holds less than {@link SSE_CLIENT_AHEAD_BYTES} unsent. False: wait for `drain`.
 */
export function sendMore(res: ServerResponse, text: string): boolean {
  return res.write(text) || res.writableLength < SSE_CLIENT_AHEAD_BYTES;
}

/**
 * The heartbeat of an SSE response: a `: keepalive` comment every `beatMs` (default 15 000; 0:
 * none), left out while the client's socket is still full. The timer to clear at the end.
 */
export function keepalive(res: ServerResponse, beatMs = 15_000): ReturnType<typeof setInterval> | undefined {
  if (beatMs <= 0) return undefined;
  return setInterval(() => {
    if (!res.writableNeedDrain) res.write(': keepalive\n\n');
  }, beatMs);
}

interface SnapshotContext {
  res: ServerResponse;
  /** Set when the client went away: nothing more is written. */
  client: { readonly stopped: boolean };
  entries: readonly NhLogEntry[];
  /** The text of entry `i`: an SSE block, or an element of the `/events` array. */
  block: (entry: NhLogEntry, i: number) => string;
  next: () => void;
}

// An element of the `/events` array: `[\n` before the first, `,\n` before the others.
const arrayElement = (e: NhLogEntry, i: number): string => `${i === 0 ? '[\n' : ',\n'}${e.json}`;

// Writes the snapshot's entries from `from` on, waiting for the socket to drain whenever it holds
// SSE_CLIENT_AHEAD_BYTES, then calls `next`: a client that connects to a long session and reads
// slowly is not handed the whole session at once.
function sendSnapshot(c: SnapshotContext, from: number): void {
  const { res, entries } = c;
  for (let i = from; i < entries.length; i++) {
    if (c.client.stopped) return;
    if (!sendMore(res, c.block(entries[i]!, i))) {
      res.once('drain', () => sendSnapshot(c, i + 1));
      return;
    }
  }
  if (!c.client.stopped) c.next();
}

// Follows the log from the client's last seq until the socket holds SSE_CLIENT_AHEAD_BYTES,
// then stops (the `drain` calls `follow` again). A follower is live until then:
// the log may go on delivering (a catch-up loop) after it was told to stop, and what it hands
// over then is the next follow's to send.
function followLog(c: FollowContext): void {
  const { client, res } = c;
  if (client.stopped) return;
  let live = true;
  let unfollow: (() => void) | undefined;
  const halt = (): void => {
    live = false;
    unfollow?.();
  };
  const follower: SessionFollower = {
    entry: (entry) => {
      if (!live || client.stopped) return false;
      client.sent = entry.seq;
      if (sendMore(res, sseBlock(entry))) return true;
      halt();
      res.once('drain', c.follow);
      return false;
    },
    end: () => {
      if (live) res.end();
    },
    error: (error) => {
      if (!live) return;
      c.report(error);
      res.end();
    },
  };
  unfollow = c.log.follow(c.workspace, c.session, client.sent, follower);
  if (!live || client.stopped) unfollow();
  else client.halt = halt;
}

/** Options of {@link createSseHandler}. */
export interface SseHandlerOptions {
  /** The log to serve: `NhSessionLog`, `RedisSessionLog` (`agentwire/redis`) or any {@link SessionLog}. */
  log: SessionLog;
  /**
   * Resolves whether the request may read the workspace. Absent: everyone may (local development
   * only). A token check fits here: `createAccessGuard({ port, token }).authorize` accepts
   * `Authorization: Bearer TOKEN` (what `connect(url, { headers: { Authorization: 'Bearer ' +
   * token } })` sends) or the viewer's cookie, comparing in constant time. Refused: `403`
   * with `{"error":"forbidden"}` and nothing of the stream.
   */
  authorize?: (request: IncomingMessage, workspace: string) => boolean | Promise<boolean>;
  /** A `: keepalive` comment this often on idle streams. Default 15 000 ms; 0 disables. */
  heartbeatMs?: number;
  /** A `retry` (ms) sent at the start of every stream. */
  retryMs?: number;
  /**
   * Receives the log's failures: a read that failed (answered `503`, which clients retry) or a
   * follow that ended (the stream is ended, the client resumes with `Last-Event-ID`).
   */
  onError?: (error: Error) => void;
}

const ROUTE = /^\/workspaces\/([^/]+)\/sessions\/([^/]+)\/(stream|events)$/;

function cursorOf(value: string | null | undefined): number | undefined | 'bad' {
  if (value === null || value === undefined || value === '') return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : 'bad';
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

const sseBlock = (e: NhLogEntry): string =>
  formatSseEvent({ id: String(e.seq), event: e.type, data: e.json });

/**
 * A `node:http` handler for the seed's read routes: `GET /workspaces/{ws}/sessions/{id}/stream`
 * (SSE honouring `Last-Event-ID` or `?after=`, the log then live events, a `gap` block when the
 * cursor is older than what is retained, `204` when a finished session has nothing more) and
 * `GET /workspaces/{ws}/sessions/{id}/events` (the log as a JSON array; `410` on an expired
 * cursor). A cursor above the session's last seq (never an id of its stream) answers `409`
 * with `{"error":"unknown_cursor","after":N,"last":M}` on both routes. A log that cannot be read
 * answers `503` (clients retry). Resolves `false` for other requests, so it can sit in front of
 * other handlers.
 */
export function createSseHandler(
  options: SseHandlerOptions,
): (request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  const { log } = options;
  const report = (error: unknown): void =>
    options.onError?.(error instanceof Error ? error : new Error(String(error)));
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = ROUTE.exec(url.pathname);
    if (match === null || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    // A client that goes away while the log is read (a slow Redis, a slow `authorize`) is not
    // served afterwards: its `close` came before the stream's own listeners, which would never
    // hear of it (a follower, a keepalive timer, and on Redis a blocking connection, for ever).
    let gone = false;
    res.once('close', () => {
      gone = true;
    });
    let workspace: string;
    let session: string;
    try {
      workspace = decodeURIComponent(match[1]!);
      session = decodeURIComponent(match[2]!);
    } catch {
      sendJson(res, 400, { error: 'bad_path' });
      return true;
    }
    if (options.authorize !== undefined && !(await options.authorize(req, workspace))) {
      sendJson(res, 403, { error: 'forbidden' });
      return true;
    }
    const header = req.headers['last-event-id'];
    const cursor = cursorOf(
      (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('after') ?? undefined,
    );
    if (cursor === 'bad') {
      sendJson(res, 400, { error: 'bad_cursor' });
      return true;
    }
    const after = cursor ?? 0;
    let s: SessionSnapshot | undefined;
    try {
      s = await log.read(workspace, session, after);
    } catch (error) {
      report(error);
      sendJson(res, 503, { error: 'unavailable' });
      return true;
    }
    if (gone) return true;
    if (s === undefined) {
      sendJson(res, 404, { error: 'not_found' });
      return true;
    }
    // A cursor above the session's last seq was never an id of this stream: followed, it would
    // skip every event up to it (or wait for ever). Refused, with what the session has; `409`
    // is not retried by EventSource or connect(), and tells the client to start again.
    if (s.head !== undefined && after > s.head) {
      sendJson(res, 409, { error: 'unknown_cursor', after, last: s.head });
      return true;
    }
    const gap = s.gap;

    if (match[3] === 'events') {
      if (gap !== undefined) {
        sendJson(res, 410, { error: 'gap', ...gap });
        return true;
      }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      if (s.entries.length === 0 || req.method === 'HEAD') {
        res.end('[]\n');
        return true;
      }
      // As the client's socket takes it, like the stream's snapshot, a page at a time: a log may
      // read an open session one page at a time (RedisSessionLog), so the array goes on from
      // the page's last seq until a read finds nothing more. A later page that cannot be read,
      // or whose entries were trimmed meanwhile, cuts the response off (the client sees an
      // unfinished array, never one with a hole).
      const reader = { stopped: false };
      res.on('close', () => {
        reader.stopped = true;
      });
      let written = 0;
      const page = (p: SessionSnapshot): void => {
        const from = written;
        written += p.entries.length;
        const next = (): void => {
          if (p.closed) res.end('\n]\n');
          else log.read(workspace, session, p.last).then(more, cut);
        };
        const block = (e: NhLogEntry, i: number): string => arrayElement(e, from + i);
        sendSnapshot({ res, client: reader, entries: p.entries, block, next }, 0);
      };
      const cut = (error: unknown): void => {
        report(error);
        res.destroy();
      };
      const more = (p: SessionSnapshot | undefined): void => {
        if (reader.stopped) return;
        if (p?.gap !== undefined)
          cut(new Error(`${session}: entries after ${p.gap.after} were trimmed while /events was written`));
        else if (p === undefined || p.entries.length === 0) res.end('\n]\n');
        else page(p);
      };
      page(s);
      return true;
    }

    if (s.closed && s.entries.length === 0 && gap === undefined) {
      res.writeHead(204);
      res.end();
      return true;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // HEAD: the headers only. Left open, the response would follow the log for a client that
    // reads no body, with its headers unsent (Node sends them with the first body byte).
    if (req.method === 'HEAD') {
      res.end();
      return true;
    }
    // At once, not with the first event: a client resuming at the end of a live session would
    // otherwise wait for the next event or keepalive to learn that it is connected.
    res.flushHeaders();
    let text = options.retryMs !== undefined ? `retry: ${Math.max(0, Math.floor(options.retryMs))}\n\n` : '';
    if (gap !== undefined) text += formatSseEvent({ event: 'gap', data: JSON.stringify(gap) });
    if (text !== '') res.write(text);
    // The snapshot as the client's socket takes it, then (unless the session is closed) the log
    // from the snapshot's last entry: the log delivers every entry after a cursor, however late
    // it is called. A client that reads slower than the session grows is followed only while its
    // socket takes more, and again from the last entry sent once the socket has drained. What it
    // has not read waits in the log (bounded by retention), never in a buffer per client.
    const client: Following = { stopped: false, sent: s.last, halt: () => {} };
    if (s.closed) {
      sendSnapshot({ res, client, entries: s.entries, block: sseBlock, next: () => res.end() }, 0);
      return true;
    }
    const follow = (): void => followLog({ log, res, report, workspace, session, client, follow });
    sendSnapshot({ res, client, entries: s.entries, block: sseBlock, next: follow }, 0);
    const timer = keepalive(res, options.heartbeatMs);
    const stop = (): void => {
      client.stopped = true;
      client.halt();
      if (timer !== undefined) clearInterval(timer);
    };
    res.on('close', stop);
    req.on('close', stop);
    if (res.writableEnded) stop();
    return true;
  };
}
