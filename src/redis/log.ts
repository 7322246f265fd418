import type { DiagnosticHandler } from '../diagnostics';
import type { AgentEvent } from '../model';
import {
  createEntryEncoder,
  cursorAhead,
  type NhLogEntry,
  type SessionFollower,
  type SessionLog,
  type SessionSnapshot,
} from '../node/session-log';
import { connectUrl, fromClient, type RedisClientLike, type RedisConnection } from './connection';
import { APPEND, HEAD, READ, type Script } from './scripts';

/** Options of {@link RedisSessionLog}: `url` or `client`, the rest optional. */
export interface RedisSessionLogOptions {
  /** `redis://host:port/db`: the log connects with the `ioredis` package (an optional peer dependency). */
  url?: string;
  /** An existing node-redis or ioredis client (the log duplicates it for blocking reads, never closes it). */
  client?: RedisClientLike;
  /** Prefix of the stream keys (`<prefix>:<workspace>:<session>`, both URI-encoded). Default `agentwire`. */
  prefix?: string;
  /** Retention: most entries kept per session (`XTRIM MAXLEN`); a reader before them gets the gap signal. */
  maxLen?: number;
  /** Trim with `~` (whole stream nodes, cheaper, keeps a few more) instead of exactly. Default false. */
  approximateTrim?: boolean;
  /** Clock for events without `ts`. Default `Date.now`. */
  clock?: () => number;
  /** Receives the writer's `loss` reports for appended events from other formats. */
  onDiagnostic?: DiagnosticHandler;
  /** Write with agentwire's nativeharness extension (`NhEncodeOptions.extensions`; serve turns it on). */
  extensions?: boolean;
  /**
   * Receives every Redis failure as it happens (each failed attempt, connection errors), also
   * the ones a retry then got past. Failures that end an operation also reject it.
   */
  onError?: (error: Error) => void;
  /** How long an operation keeps retrying while Redis is unreachable. Default 30 000 ms. */
  retryForMs?: number;
  /** One attempt's limit (a blocking read: this past its block time). Default 5 000 ms. */
  attemptTimeoutMs?: number;
  /** How long one blocking `XREAD` waits for new entries. Default 2 000 ms. */
  blockMs?: number;
  /** Entries per append script call and per read. Default 500. */
  batchSize?: number;
}

/** What went wrong in a {@link RedisSessionLog} operation. */
export type RedisLogErrorCode = 'closed' | 'conflict' | 'unavailable' | 'gap' | 'cursor' | 'deleted';

/** A failure of the Redis session log; `cause` is the client's error where there is one. */
export class RedisLogError extends Error {
  /** `closed`: append to a closed session; `conflict`: a seq holds another writer's event; `unavailable`: Redis unreachable past the retry window; `gap`: entries trimmed under a follower; `cursor`: a follow from a cursor past the session's last seq; `deleted`: the session's stream was deleted under a follower. */
  readonly code: RedisLogErrorCode;

  /** Builds the error. */
  constructor(code: RedisLogErrorCode, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'RedisLogError';
    this.code = code;
  }
}

// One stream entry as read: an event, or the close marker `<last seq>-1`.
interface RawEntry {
  id: string;
  seq: number;
  /** The seq stored before this entry: a reader that has not seen it missed trimmed entries. */
  prev: number;
  end: boolean;
  entry: NhLogEntry | undefined;
}

// An entry to write, with the seq its writer wrote before it (stored as `p` when not seq - 1).
interface Queued extends NhLogEntry {
  prev: number;
}

interface Writer {
  encode: ((event: AgentEvent) => NhLogEntry[]) | undefined;
  /** The seq of the last entry encoded (or stored, for a writer that has encoded nothing yet). */
  last: number;
  /** Entries encoded but not yet acknowledged by Redis, written before anything newer. */
  pending: Queued[];
  /** The session's appends and close, one after another (sessions do not wait for each other). */
  queue: Promise<unknown>;
}

interface Listener {
  after: number;
  follower: SessionFollower;
  /** Entries the tail read while this listener was catching up. */
  buffer: RawEntry[] | undefined;
  done: boolean;
  /** The tail that feeds it, once attached (a cursor being checked has none yet). */
  tail: Tail | undefined;
}

interface Tail {
  key: string;
  /** The id of the last entry the tail read. */
  cursor: string;
  /**
   * The stream is known to have existed (an entry read, a cursor above 0 checked, a look that
   * found it): from then on, a stream found missing was deleted, not yet to be created.
   */
  seen: boolean;
  listeners: Set<Listener>;
  connection: RedisConnection | undefined;
  stopped: boolean;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

// Reply errors that another attempt cannot fix: the scripts' own verdicts, wrong key types,
// script and syntax errors. Everything else (connection loss, LOADING after a restart, BUSY,
// READONLY during a failover, TRYAGAIN, timeouts) is worth retrying.
function fatal(error: unknown): RedisLogError | undefined {
  const message = messageOf(error);
  if (error instanceof RedisLogError) return error;
  if (error instanceof TypeError) return new RedisLogError('unavailable', message, error);
  if (message.startsWith('AGENTWIRE_CLOSED')) return new RedisLogError('closed', message.slice(17), error);
  if (message.startsWith('AGENTWIRE_CONFLICT'))
    return new RedisLogError('conflict', message.slice(19), error);
  if (/^(ERR|WRONGTYPE|NOPERM|WRONGPASS)\b/.test(message))
    return new RedisLogError('unavailable', message, error);
  return undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// Rejects when `promise` takes longer than `ms`; a late settlement is ignored.
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no reply within ${ms} ms`)), ms);
  });
  promise.catch(() => {});
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function parseId(id: string): [number, number] {
  const dash = id.indexOf('-');
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}

function rawEntry(raw: unknown): RawEntry {
  const [id, fields] = raw as [string, string[]];
  const [seq, sub] = parseId(String(id));
  if (sub === 1) return { id, seq, prev: seq, end: true, entry: undefined };
  let type = '';
  let json = '';
  let prev = seq - 1;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 't') type = String(fields[i + 1]);
    else if (fields[i] === 'j') json = String(fields[i + 1]);
    else if (fields[i] === 'p') prev = Number(fields[i + 1]);
  }
  return { id, seq, prev, end: false, entry: { seq, type, json } };
}

// The entries of the one stream an XREAD asked for, in any reply shape: RESP2 arrays
// (`[[key, entries]]`), flattened RESP3 maps (`[key, entries]`), or a map object.
function xreadEntries(reply: unknown): unknown[] {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) {
    if (reply.length === 0) return [];
    return (Array.isArray(reply[0]) ? reply[0][1] : reply[1]) as unknown[];
  }
  if (reply instanceof Map) return ([...reply.values()][0] as unknown[] | undefined) ?? [];
  return (Object.values(reply as object)[0] as unknown[] | undefined) ?? [];
}

/**
 * A {@link SessionLog} on Redis Streams, shared by every process that opens the same Redis:
 * one appends, all of them serve. One stream per session; an event is stored as the entry id
 * `<seq>-0`, so an append is idempotent (a retried append stores nothing twice), and a cursor
 * (`Last-Event-ID: N`) is read as `XRANGE`/`XREAD` after `N-0`. Appends resolve only once Redis
 * acknowledged them, and readers only ever see what `XRANGE`/`XREAD` return: persist, then
 * emit. Retention is `maxLen` (or {@link RedisSessionLog.trim}); a reader whose cursor was
 * trimmed away gets the gap signal. While Redis is unreachable, appends and reads retry for
 * `retryForMs` (reporting each failure to `onError`), then reject; followers resume from their
 * last entry. One writer per session (a second one is refused with a `conflict` error).
 * Node-only; see docs/scaling.md.
 */
export class RedisSessionLog implements SessionLog {
  private readonly options: RedisSessionLogOptions;
  private connecting: Promise<RedisConnection> | undefined;
  private readonly writers = new Map<string, Writer>();
  private readonly tails = new Map<string, Tail>();
  private quitting = false;

  /** Creates the log; it connects on first use. */
  constructor(options: RedisSessionLogOptions) {
    if ((options.url === undefined) === (options.client === undefined)) {
      throw new TypeError('RedisSessionLog needs exactly one of url and client');
    }
    if (options.maxLen !== undefined && !(Number.isSafeInteger(options.maxLen) && options.maxLen > 0)) {
      throw new TypeError('maxLen takes a positive integer');
    }
    this.options = options;
  }

  /**
   * Connects now instead of on first use (a server checks its Redis before it listens). Rejects
   * when Redis cannot be reached, the URL is wrong or the peer package is missing (later
   * operations try to connect again). Resolves once connected.
   */
  async connect(): Promise<void> {
    await this.connection();
  }

  /** The stream key of a session. */
  key(workspace: string, session: string): string {
    const prefix = this.options.prefix ?? 'agentwire';
    return `${prefix}:${encodeURIComponent(workspace)}:${encodeURIComponent(session)}`;
  }

  private get batch(): number {
    return this.options.batchSize ?? 500;
  }

  private report(error: Error): void {
    this.options.onError?.(error);
  }

  private connection(): Promise<RedisConnection> {
    if (this.connecting === undefined) {
      const onError = (error: Error): void => this.report(error);
      const { url, client } = this.options;
      this.connecting =
        url !== undefined ? connectUrl(url, onError) : Promise.resolve(fromClient(client!, onError));
      // A missing peer package or a bad URL: the next operation tries again.
      this.connecting.catch(() => {
        this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  // Runs one Redis operation, retrying what is retryable with a growing wait until `retryForMs`.
  private async retrying<T>(what: string, attempt: () => Promise<T>): Promise<T> {
    const limit = this.options.retryForMs ?? 30_000;
    const perAttempt = this.options.attemptTimeoutMs ?? 5_000;
    const deadline = Date.now() + limit;
    for (let n = 0; ; n++) {
      if (this.quitting) throw new RedisLogError('unavailable', `${what}: the log was closed`);
      try {
        return await within(attempt(), perAttempt, what);
      } catch (error) {
        const verdict = fatal(error);
        if (verdict !== undefined) throw verdict;
        this.report(
          new RedisLogError('unavailable', `${what}: ${messageOf(error)} (attempt ${n + 1})`, error),
        );
        const wait = Math.min(25 * 2 ** n, 1000);
        if (Date.now() + wait > deadline) {
          throw new RedisLogError('unavailable', `${what}: Redis unreachable for ${limit} ms`, error);
        }
        await sleep(wait);
      }
    }
  }

  private async evalScript(
    script: Script,
    key: string,
    args: string[],
    on?: RedisConnection,
  ): Promise<unknown> {
    const connection = on ?? (await this.connection());
    try {
      return await connection.send(['EVALSHA', script.sha, '1', key, ...args]);
    } catch (error) {
      // A restarted server has forgotten the script.
      if (!messageOf(error).startsWith('NOSCRIPT')) throw error;
      return connection.send(['EVAL', script.source, '1', key, ...args]);
    }
  }

  // Runs a session's appends and close in call order, each with the session's writer.
  private serial<T>(key: string, run: (w: Writer) => Promise<T>): Promise<T> {
    let w = this.writers.get(key);
    if (w === undefined) {
      w = { encode: undefined, last: 0, pending: [], queue: Promise.resolve() };
      this.writers.set(key, w);
    }
    const writer = w;
    const result = writer.queue.then(() => run(writer));
    writer.queue = result.catch(() => {});
    return result;
  }

  // Writes the pending entries (and the close marker), a batch per script call.
  private async flush(key: string, w: Writer, close: boolean): Promise<number> {
    const trim = String(this.options.maxLen ?? 0);
    const how = this.options.approximateTrim === true ? '~' : '=';
    for (;;) {
      const batch = w.pending.slice(0, this.batch);
      const closing = close && batch.length === w.pending.length;
      const args = [trim, how, closing ? '1' : '0'];
      for (const e of batch) args.push(String(e.seq), e.type, e.json, String(e.prev));
      let reply: unknown;
      try {
        reply = await this.retrying('append', () => this.evalScript(APPEND, key, args));
      } catch (error) {
        if (error instanceof RedisLogError && error.code !== 'unavailable') {
          // Another writer or a closed session: what this writer holds is no longer the truth.
          w.pending = [];
          w.encode = undefined;
        }
        throw error;
      }
      w.pending.splice(0, batch.length);
      if (w.pending.length === 0) return Number((reply as unknown[])[2]);
    }
  }

  /**
   * Appends events (see {@link SessionLog.append}); resolves once Redis acknowledged them. When
   * it rejects because Redis stayed unreachable, its entries stay queued and are written before
   * the next append's, so seqs stay in order with no hole and nothing twice.
   */
  append(workspace: string, session: string, events: Iterable<AgentEvent>): Promise<NhLogEntry[]> {
    const key = this.key(workspace, session);
    return this.serial(key, async (w) => {
      if (w.encode === undefined) {
        // The session's stored last seq (0 for a new one): a new writer continues after it.
        const last = await this.flush(key, w, false);
        w.last = last;
        w.encode = createEntryEncoder({
          workspace,
          session,
          startSeq: last + 1,
          clock: this.options.clock,
          onDiagnostic: this.options.onDiagnostic,
          extensions: this.options.extensions,
        });
      }
      const written: NhLogEntry[] = [];
      for (const event of events) written.push(...w.encode(event));
      for (const e of written) {
        w.pending.push({ ...e, prev: w.last });
        w.last = e.seq;
      }
      await this.flush(key, w, false);
      return written;
    });
  }

  /** Closes a session: the marker entry after its last event ends every follower, in every process. */
  close(workspace: string, session: string): Promise<void> {
    const key = this.key(workspace, session);
    return this.serial(key, async (w) => {
      await this.flush(key, w, true);
      // A closed session takes no more appends: its writer is forgotten, so a long-lived process
      // does not keep one per session it ever wrote (a later append reads Redis again and is
      // refused there, as is one already queued behind this close).
      if (this.writers.get(key) === w) this.writers.delete(key);
    });
  }

  /**
   * Retention by seq: removes the session's entries before `beforeSeq` (`XTRIM MINID`).
   * Resolves to the number removed.
   */
  async trim(workspace: string, session: string, beforeSeq: number): Promise<number> {
    const key = this.key(workspace, session);
    const reply = await this.retrying('trim', async () =>
      (await this.connection()).send(['XTRIM', key, 'MINID', `${Math.floor(beforeSeq)}-0`]),
    );
    return Number(reply);
  }

  /** Reads the entries after `after` at one instant (see {@link SessionLog.read}). */
  async read(workspace: string, session: string, after: number): Promise<SessionSnapshot | undefined> {
    const key = this.key(workspace, session);
    const reply = (await this.retrying('read', () =>
      this.evalScript(READ, key, [String(after), String(this.batch)]),
    )) as [string, string, unknown[], string] | null;
    if (reply === null || reply === undefined) return undefined;
    const [lastSeq, lastSub] = parseId(reply[0]);
    // What retention removed: everything up to the seq stored before the first entry kept.
    let dropped = lastSeq;
    let next = lastSeq + 1;
    if (reply[1] !== '') {
      const [seq, sub] = parseId(reply[1]);
      dropped = sub === 1 ? seq : reply[3] ? Number(reply[3]) : seq - 1;
      next = sub === 1 ? seq + 1 : seq;
    }
    const snapshot: SessionSnapshot = {
      entries: [],
      closed: lastSub === 1,
      last: Math.max(after, dropped),
      head: lastSeq,
    };
    if (dropped > 0 && after < dropped) snapshot.gap = { after, next };
    let page = reply[2];
    for (;;) {
      let id = '';
      for (const raw of page) {
        const r = rawEntry(raw);
        id = r.id;
        if (r.entry !== undefined) snapshot.entries.push(r.entry);
      }
      // A closed session does not grow: read it to its end; an open one is followed from here.
      if (!snapshot.closed || page.length < this.batch) break;
      const from = id;
      page = (await this.retrying('read', async () =>
        (await this.connection()).send(['XRANGE', key, `(${from}`, '+', 'COUNT', String(this.batch)]),
      )) as unknown[];
    }
    const lastEntry = snapshot.entries[snapshot.entries.length - 1];
    if (lastEntry !== undefined) snapshot.last = Math.max(snapshot.last, lastEntry.seq);
    return snapshot;
  }

  /**
   * Follows a session (see {@link SessionLog.follow}). The followers of one session in this
   * process share one blocking `XREAD` connection; a follower behind it catches up with
   * `XRANGE` first.
   */
  follow(workspace: string, session: string, after: number, follower: SessionFollower): () => void {
    const key = this.key(workspace, session);
    const listener: Listener = { after, follower, buffer: undefined, done: false, tail: undefined };
    // A cursor is taken as given when this process has read that far (the tail's last id) or
    // it is 0; any other is first checked against the session's last seq: one above it was
    // never an id of this stream, and following from it would skip the entries up to it or
    // wait for ever (XREAD after an id past the end waits for that id).
    const tail = this.tails.get(key);
    if (after === 0 || (tail !== undefined && parseId(tail.cursor)[0] >= after)) this.attach(key, listener);
    else void this.attachChecked(key, session, listener);
    return () => {
      listener.done = true;
      if (listener.tail !== undefined) this.drop(listener.tail, listener);
    };
  }

  // Attaches the listener once its cursor is known not to be past the session's last seq.
  private async attachChecked(key: string, session: string, listener: Listener): Promise<void> {
    let head: number;
    try {
      const reply = await this.retrying('follow', () => this.evalScript(HEAD, key, []));
      head = reply === null || reply === undefined ? 0 : Number(reply);
    } catch (error) {
      if (!listener.done) {
        listener.done = true;
        listener.follower.error(error as Error);
      }
      return;
    }
    if (listener.done) return;
    const ahead = cursorAhead(session, listener.after, head);
    if (ahead === undefined) this.attach(key, listener);
    else {
      listener.done = true;
      listener.follower.error(new RedisLogError('cursor', `${key}: ${ahead}`));
    }
  }

  // Joins the listener to the session's tail (started for it when there is none), catching up
  // with XRANGE first when the tail has read past its cursor.
  private attach(key: string, listener: Listener): void {
    const after = listener.after;
    let tail = this.tails.get(key);
    if (tail === undefined) {
      tail = {
        key,
        cursor: `${after}-0`,
        // A cursor above 0 was checked against the stream (attachChecked): it exists.
        seen: after > 0,
        listeners: new Set(),
        connection: undefined,
        stopped: false,
      };
      this.tails.set(key, tail);
      void this.run(tail);
    } else if (parseId(tail.cursor)[0] > after) {
      listener.buffer = [];
      void this.catchUp(tail, listener);
    }
    tail.listeners.add(listener);
    listener.tail = tail;
  }

  private drop(tail: Tail, listener: Listener): void {
    tail.listeners.delete(listener);
    if (tail.listeners.size === 0) this.stop(tail);
  }

  private stop(tail: Tail): void {
    if (tail.stopped) return;
    tail.stopped = true;
    if (this.tails.get(tail.key) === tail) this.tails.delete(tail.key);
    // Closing rejects the blocked XREAD, which ends the loop.
    void tail.connection?.close();
  }

  // Hands one entry to a listener: in order, each once; an entry stored after one the listener
  // has not had means entries were trimmed away.
  private deliver(tail: Tail, l: Listener, r: RawEntry): void {
    if (l.done) return;
    if (l.buffer !== undefined) {
      l.buffer.push(r);
      return;
    }
    if (r.prev > l.after) {
      this.fail(tail, l, this.gapError(tail, l));
      return;
    }
    if (r.end) {
      l.done = true;
      this.drop(tail, l);
      l.follower.end();
      return;
    }
    if (r.seq <= l.after) return;
    l.after = r.seq;
    if (l.follower.entry(r.entry!) === false) {
      l.done = true;
      this.drop(tail, l);
    }
  }

  private gapError(tail: Tail, l: Listener): RedisLogError {
    return new RedisLogError(
      'gap',
      `${tail.key}: entries after ${l.after} were trimmed before they were read`,
    );
  }

  private fail(tail: Tail, l: Listener, error: Error): void {
    l.done = true;
    this.drop(tail, l);
    l.follower.error(error);
  }

  private async catchUp(tail: Tail, l: Listener): Promise<void> {
    try {
      for (;;) {
        const from = l.after;
        const page = (await this.retrying('catch up', async () =>
          (
            await this.connection()
          ).send(['XRANGE', tail.key, `(${from}-0`, '+', 'COUNT', String(this.batch)]),
        )) as unknown[];
        const buffer = l.buffer;
        l.buffer = undefined;
        for (const raw of page) this.deliver(tail, l, rawEntry(raw));
        if (l.done || page.length < this.batch) {
          for (const r of buffer ?? []) this.deliver(tail, l, r);
          return;
        }
        l.buffer = buffer;
      }
    } catch (error) {
      if (!l.done) this.fail(tail, l, error as Error);
    }
  }

  // The tail loop: one blocking XREAD after another from the last id read, dispatching each
  // entry to the session's listeners, until none is left. A failure is reported and retried
  // from the same id (the client reconnects); past `retryForMs` the listeners get the error.
  private async run(tail: Tail): Promise<void> {
    const block = this.options.blockMs ?? 2_000;
    const limit = this.options.retryForMs ?? 30_000;
    const perAttempt = this.options.attemptTimeoutMs ?? 5_000;
    let failingSince: number | undefined;
    for (let n = 0; !tail.stopped; ) {
      try {
        if (tail.connection === undefined) {
          const own = (await this.connection()).duplicate();
          // A connection that arrives after its attempt timed out is closed, not leaked.
          let late = false;
          own.then(
            (c) => late && void c.close(),
            () => {},
          );
          const connection = await within(own, perAttempt, `${tail.key}: connect`).catch((error) => {
            late = true;
            throw error;
          });
          if (tail.stopped) {
            await connection.close();
            return;
          }
          tail.connection = connection;
        }
        const command = ['XREAD', 'COUNT', String(this.batch), 'BLOCK', String(block), 'STREAMS'];
        const reply = await within(
          tail.connection.send([...command, tail.key, tail.cursor]),
          block + perAttempt,
          `${tail.key}: XREAD`,
        );
        failingSince = undefined;
        n = 0;
        const entries = xreadEntries(reply);
        if (entries.length > 0) tail.seen = true;
        // The block ran out with nothing new. XREAD on a key that no longer exists blocks like
        // any other, so a stream deleted under its followers (DEL, an EXPIRE, FLUSHDB) would
        // keep them waiting for ever: each empty round looks whether it is still there.
        else if (await this.deleted(tail, perAttempt)) return;
        for (const raw of entries) {
          const r = rawEntry(raw);
          tail.cursor = r.id;
          for (const l of [...tail.listeners]) this.deliver(tail, l, r);
        }
      } catch (error) {
        if (tail.stopped) return;
        if (messageOf(error).includes('no reply within')) {
          // A connection that stopped answering is replaced.
          void tail.connection?.close();
          tail.connection = undefined;
        }
        failingSince ??= Date.now();
        this.report(new RedisLogError('unavailable', `${tail.key}: ${messageOf(error)}`, error));
        if (Date.now() - failingSince > limit) {
          const gone = new RedisLogError(
            'unavailable',
            `${tail.key}: Redis unreachable for ${limit} ms`,
            error,
          );
          for (const l of [...tail.listeners]) this.fail(tail, l, gone);
          return;
        }
        await sleep(Math.min(25 * 2 ** n++, 1000));
      }
    }
  }

  // Whether the tail's stream was deleted: then every listener ends with a `deleted` error (the
  // session's log is gone; nothing more will come, and what a reader has is all it gets) and
  // the tail stops. A stream that has never existed is a session not started yet: waited for.
  private async deleted(tail: Tail, perAttempt: number): Promise<boolean> {
    const head = await within(
      this.evalScript(HEAD, tail.key, [], tail.connection),
      perAttempt,
      `${tail.key}: HEAD`,
    );
    if (head !== null && head !== undefined) {
      tail.seen = true;
      return false;
    }
    if (!tail.seen || tail.stopped) return false;
    const gone = new RedisLogError(
      'deleted',
      `${tail.key}: the stream was deleted under its followers (last entry read: ${tail.cursor}); the session's log is gone`,
    );
    for (const l of [...tail.listeners]) this.fail(tail, l, gone);
    this.stop(tail);
    return true;
  }

  /** Stops every follower's reads and closes the connections this log opened. */
  async quit(): Promise<void> {
    this.quitting = true;
    for (const tail of [...this.tails.values()]) this.stop(tail);
    const connecting = this.connecting;
    this.connecting = undefined;
    if (connecting !== undefined && this.options.url !== undefined) {
      await (await connecting.catch(() => undefined))?.close();
    }
  }
}
