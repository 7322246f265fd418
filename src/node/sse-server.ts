import type { IncomingMessage, ServerResponse } from 'node:http';
import { createDiagnosticSink, type Diagnostic, type DiagnosticHandler } from '../diagnostics';
import { type NhEncodeOptions, NhEncoder } from '../formats/nativeharness/encode';
import { validateNhEnvelope } from '../formats/nativeharness/schema';
import { formatSseEvent } from '../formats/nativeharness/sse';
import { DEFAULT_MAX_DEPTH, isJsonObject, parseJsonLine } from '../json';
import { LineSplitter } from '../lines';
import type { AgentEvent } from '../model';

/** One persisted envelope: its seq, type and compact JSON text. */
export interface NhLogEntry {
  seq: number;
  type: string;
  json: string;
}

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
  encoder: NhEncoder | undefined;
  listeners: Set<(entry: NhLogEntry | undefined) => void>;
}

const key = (workspace: string, session: string): string => `${workspace}\u0000${session}`;

/**
 * The persisted event log of nativeharness sessions, in memory, with persist-then-emit: an
 * appended event is handed to `persist` and awaited, then stored, then emitted to live
 * subscribers. Appends to one log are serialised, so `seq` order is the emit order.
 */
export class NhSessionLog {
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
            return sink.report({
              code: 'invalid_record',
              severity: 'error',
              message: `line ${n} (byte ${offset}): not an envelope: ${problem}`,
              line: n,
              offset,
              format: 'nativeharness',
            });
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
        const last = s.entries[s.entries.length - 1]?.seq ?? s.dropped;
        const options: NhEncodeOptions = {
          framing: 'jsonl',
          workspace,
          session,
          startSeq: last + 1,
          conform: true,
        };
        if (this.options.clock !== undefined) options.clock = this.options.clock;
        if (this.options.extensions === true) options.extensions = true;
        s.encoder = new NhEncoder(options, createDiagnosticSink(false, this.options.onDiagnostic));
      }
      const written: NhLogEntry[] = [];
      for (const event of events) {
        const text = s.encoder.write({ ...event, workspace, session });
        for (const json of text.split('\n')) {
          if (json === '') continue;
          const r = JSON.parse(json) as { seq: number; type: string };
          const entry = { seq: r.seq, type: r.type, json };
          await this.options.persist?.(workspace, session, json);
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

/** Options of {@link createSseHandler}. */
export interface SseHandlerOptions {
  /** The log to serve. */
  log: NhSessionLog;
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

/**
 * A `node:http` handler for the seed's read routes: `GET /workspaces/{ws}/sessions/{id}/stream`
 * (SSE honouring `Last-Event-ID` or `?after=`, the log then live events, a `gap` block when the
 * cursor is older than what is retained, `204` when a finished session has nothing more) and
 * `GET /workspaces/{ws}/sessions/{id}/events` (the log as a JSON array; `410` on an expired
 * cursor). Resolves `false` for other requests, so it can sit in front of other handlers.
 */
export function createSseHandler(
  options: SseHandlerOptions,
): (request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  const { log } = options;
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = ROUTE.exec(url.pathname);
    if (match === null || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
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
    const s = log.get(workspace, session);
    if (s === undefined) {
      sendJson(res, 404, { error: 'not_found' });
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
    const first = s.entries[0]?.seq;
    const gap = s.dropped > 0 && after < s.dropped ? { after, next: first ?? s.dropped + 1 } : undefined;

    if (match[3] === 'events') {
      if (gap !== undefined) {
        sendJson(res, 410, { error: 'gap', ...gap });
        return true;
      }
      const lines = s.entries.filter((e) => e.seq > after).map((e) => e.json);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      res.end(lines.length === 0 ? '[]\n' : `[\n${lines.join(',\n')}\n]\n`);
      return true;
    }

    const last = s.entries[s.entries.length - 1]?.seq ?? s.dropped;
    if (s.closed && after >= last) {
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
    let text = options.retryMs !== undefined ? `retry: ${Math.max(0, Math.floor(options.retryMs))}\n\n` : '';
    if (gap !== undefined) text += formatSseEvent({ event: 'gap', data: JSON.stringify(gap) });
    for (const e of s.entries) {
      if (e.seq > after) text += formatSseEvent({ id: String(e.seq), event: e.type, data: e.json });
    }
    if (text !== '') res.write(text);
    if (s.closed) {
      res.end();
      return true;
    }
    // Subscribed in the same tick as the backlog was read: no event can fall in between.
    const unsubscribe = log.subscribe(workspace, session, (entry) => {
      if (entry === undefined) res.end();
      else res.write(formatSseEvent({ id: String(entry.seq), event: entry.type, data: entry.json }));
    });
    const beat = options.heartbeatMs ?? 15_000;
    const timer = beat > 0 ? setInterval(() => res.write(': keepalive\n\n'), beat) : undefined;
    const stop = (): void => {
      unsubscribe();
      if (timer !== undefined) clearInterval(timer);
    };
    res.on('close', stop);
    req.on('close', stop);
    return true;
  };
}
