import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Codec, EncodeOptions, Encoder } from '../codec';
import { type RefusalContext, writeOrReport } from '../convert-stream';
import type { DiagnosticHandler, Format } from '../diagnostics';
import { AISDK_HEADERS } from '../formats/ai-sdk/wire';
import type { AgentEvent } from '../model';
import { firstAfter } from './session-log';
import { keepalive, sendMore } from './sse-server';

/** One persisted record of a UI protocol stream: its sequence number and JSON text. */
export interface ProtocolLogEntry {
  seq: number;
  /** The record's JSON text (the SSE `data`). */
  json: string;
}

/** Options of {@link ProtocolLog}. */
export interface ProtocolLogOptions {
  /** The UI protocol the log writes (`agui` or `aisdk`; any codec whose SSE is `data:` lines). */
  codec: Codec;
  /**
   * Writes one record's JSON text (no newline) to durable storage, e.g. appends it to a JSON
   * Lines file (which the codec reads back). Awaited before the record reaches any subscriber.
   */
  persist?: (json: string) => void | Promise<void>;
  /** Most records kept; older ones are dropped and a resume before them starts after the gap. */
  retain?: number;
  /** Options for the writer (ids). */
  encode?: EncodeOptions & Record<string, unknown>;
  /** Receives the writer's `loss` reports. */
  onDiagnostic?: DiagnosticHandler;
}

/**
 * One live stream of canonical events written in a UI protocol (AG-UI, the AI SDK UI message
 * stream), with persist-then-emit: each record the writer makes is numbered, handed to `persist`
 * and awaited, stored, then emitted to subscribers. Appends are serialised, so the numbering is
 * the emit order, and a reconnecting client resumes after the last number it saw.
 */
export class ProtocolLog {
  private readonly options: ProtocolLogOptions;
  private readonly encoder: Encoder;
  private readonly refusal: RefusalContext;
  private readonly listeners = new Set<(entry: ProtocolLogEntry | undefined) => void>();
  private tail: Promise<unknown> = Promise.resolve();
  private seq = 0;
  /** The protocol written. */
  readonly format: Format;
  /** The records kept, oldest first. */
  readonly entries: ProtocolLogEntry[] = [];
  /** Highest number dropped by retention (0: none). */
  dropped = 0;
  /** True once the input ended: streams end after the last record. */
  closed = false;

  /** Creates an empty log writing `options.codec`. */
  constructor(options: ProtocolLogOptions) {
    this.options = options;
    this.format = options.codec.format;
    const encode: EncodeOptions & Record<string, unknown> = { ...options.encode, framing: 'jsonl' };
    if (options.onDiagnostic !== undefined) encode.onDiagnostic = options.onDiagnostic;
    this.encoder = options.codec.createEncoder(encode);
    // An event the writer refuses is reported at its input line; the stream goes on.
    this.refusal = { to: this.format, report: (d) => options.onDiagnostic?.(d), strict: false };
  }

  /** Writes `events`, persists each record, then emits it. Resolves to the records written. */
  append(events: Iterable<AgentEvent>): Promise<ProtocolLogEntry[]> {
    const run = async (): Promise<ProtocolLogEntry[]> => {
      let text = '';
      for (const event of events) text += writeOrReport(this.encoder, event, this.refusal);
      return this.store(text);
    };
    const result = this.tail.then(run);
    this.tail = result.catch(() => {});
    return result;
  }

  /** Ends the stream: the writer's last records, then every live stream ends. */
  close(): Promise<void> {
    const result = this.tail.then(async () => {
      if (this.closed) return;
      await this.store(this.encoder.end());
      this.closed = true;
      for (const listener of this.listeners) listener(undefined);
      this.listeners.clear();
    });
    this.tail = result.catch(() => {});
    return result;
  }

  /** Calls `listener` with each record stored from now on, and `undefined` when the log closes. */
  subscribe(listener: (entry: ProtocolLogEntry | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async store(text: string): Promise<ProtocolLogEntry[]> {
    const written: ProtocolLogEntry[] = [];
    for (const json of text.split('\n')) {
      if (json === '') continue;
      await this.options.persist?.(json);
      const entry = { seq: ++this.seq, json };
      this.entries.push(entry);
      const retain = this.options.retain;
      if (retain !== undefined && this.entries.length > retain) {
        this.dropped = this.entries.splice(0, this.entries.length - retain).at(-1)!.seq;
      }
      written.push(entry);
      for (const listener of this.listeners) listener(entry);
    }
    return written;
  }
}

/** Options of {@link createProtocolHandler}. */
export interface ProtocolHandlerOptions {
  /** The log to serve. */
  log: ProtocolLog;
  /** The request paths served (GET or POST). Default: any path ending in `/stream`, and `/`. */
  path?: RegExp;
  /** A `: keepalive` comment this often on idle streams. Default 15 000 ms; 0 disables. */
  heartbeatMs?: number;
}

function block(entry: ProtocolLogEntry): string {
  return `id: ${entry.seq}\ndata: ${entry.json}\n\n`;
}

/**
 * A `node:http` handler serving a {@link ProtocolLog} as server-sent events to a UI protocol's
 * client: `GET` or `POST` (a `useChat` transport or an AG-UI `HttpAgent` posts its request; the
 * body is read and ignored), the records so far then live ones, each `data: {json}` with an `id`
 * so a reconnect with `Last-Event-ID` (or `?after=N`) resumes after it; `204` when a closed log
 * has nothing more; `409` with `{"error":"unknown_cursor","after":N,"last":M}` for a cursor
 * above the last record's number (never an id of this stream). The AI SDK stream carries `x-vercel-ai-ui-message-stream: v1`. Resolves
 * `false` for other requests.
 */
export function createProtocolHandler(
  options: ProtocolHandlerOptions,
): (request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  const { log } = options;
  const path = options.path ?? /^(?:\/|.*\/stream)$/;
  const headers: Record<string, string> =
    log.format === 'ai-sdk'
      ? { ...AISDK_HEADERS }
      : { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' };
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!path.test(url.pathname) || (req.method !== 'GET' && req.method !== 'POST')) return false;
    if (req.method === 'POST') req.resume();
    const header = req.headers['last-event-id'];
    const cursor = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('after') ?? '';
    if (cursor !== '' && !/^\d{1,15}$/.test(cursor)) {
      res.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
      res.end('{"error":"bad_cursor"}\n');
      return true;
    }
    const after = cursor === '' ? 0 : Number(cursor);
    const last = log.entries.at(-1)?.seq ?? log.dropped;
    // A cursor above the last record's number was never an id of this stream (another
    // stream's, or a log begun again): followed, it would skip every record up to it or wait
    // for ever. Refused as the nativeharness routes refuse it; 409 is not retried.
    if (after > last) {
      res.writeHead(409, { 'content-type': 'application/json; charset=utf-8' });
      res.end(`${JSON.stringify({ error: 'unknown_cursor', after, last })}\n`);
      return true;
    }
    if (log.closed && after === last && after > 0) {
      res.writeHead(204);
      res.end();
      return true;
    }
    res.writeHead(200, headers);
    // At once, not with the first record: a client resuming at the end of a live log would
    // otherwise wait for the next record or keepalive to learn that it is connected.
    res.flushHeaders();
    // The records after the client's cursor, while its socket takes more: past
    // SSE_CLIENT_AHEAD_BYTES unsent it waits for the socket to drain and goes on from the last
    // record sent, so a client that reads slower than the log grows is not written ahead of its
    // reading (what it has not read waits in the log).
    const client = { sent: after, waiting: false, stopped: false };
    const pump = (): void => {
      client.waiting = false;
      if (client.stopped) return;
      const entries = log.entries;
      for (let i = firstAfter(entries, client.sent); i < entries.length; i++) {
        client.sent = entries[i]!.seq;
        if (!sendMore(res, block(entries[i]!))) {
          client.waiting = true;
          res.once('drain', pump);
          return;
        }
      }
      if (log.closed) res.end();
    };
    pump();
    if (log.closed) return true;
    // Subscribed in the same tick as the backlog was read: no record can fall in between.
    const unsubscribe = log.subscribe(() => {
      if (!client.waiting) pump();
    });
    const timer = keepalive(res, options.heartbeatMs);
    const stop = (): void => {
      client.stopped = true;
      unsubscribe();
      if (timer !== undefined) clearInterval(timer);
    };
    // The response's close, not the request's: a POST's request closes once its body is read
    // (useChat's, AG-UI's), and stopping then left the client with the backlog and no end.
    res.on('close', stop);
    return true;
  };
}
