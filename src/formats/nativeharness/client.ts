import { createDiagnosticSink, type Diagnostic, type DiagnosticHandler } from '../../diagnostics';
import { SseReader, sseReaderOptions } from '../../framing/sse';
import { resolveMaxDepth } from '../../json';
import type { AgentEvent } from '../../model';
import { NhEnvelopeDecoder, NhSseMessageDecoder } from './decode';

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** Stops the connection (and the iteration) for good. */
  signal?: AbortSignal;
  /** Resume after this event id (a `seq`) instead of reading the whole log. */
  lastEventId?: string;
  /**
   * Extra request headers, sent on every attempt: a server that wants a token (`agentwire serve
   * --token`) takes `{ Authorization: 'Bearer ' + token }`. In a browser page served by that
   * server, its cookie goes along by itself (same origin): nothing to add.
   */
  headers?: Record<string, string>;
  /** The `fetch` to use. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Wait before a reconnect until the server sends `retry`. Default 1000 ms. */
  retryMs?: number;
  /** Lower clamp of the wait (also for the server's `retry`). Default 100 ms. */
  minRetryMs?: number;
  /** Upper clamp of the wait, backoff included. Default 30 000 ms. */
  maxRetryMs?: number;
  /**
   * Consecutive attempts that bring no event before giving up with an error diagnostic.
   * Default `Infinity` (like `EventSource`); each failure doubles the wait up to `maxRetryMs`.
   */
  maxAttempts?: number;
  /** Receives diagnostics: bad events, `gap`, HTTP failures. */
  onDiagnostic?: DiagnosticHandler;
  /** Throw at the first `error` diagnostic instead of reporting it. */
  strict?: boolean;
  /** Bounds, as for the decoder. */
  maxLineBytes?: number;
  maxEventBytes?: number;
  maxDepth?: number;
}

/** A live, resuming session stream: iterate it for the canonical events. */
export interface NhConnection extends AsyncIterable<AgentEvent> {
  /** The id of the last complete event received: what a reconnect sends as `Last-Event-ID`. */
  readonly lastEventId: string;
  /** The `seq` of the last event delivered. */
  readonly lastSeq: number | undefined;
  /** Ends the connection; the iteration finishes. */
  close(): void;
}

// Statuses a server may answer while it is briefly unavailable: worth another attempt.
const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Reads a nativeharness session stream (`GET …/stream`) with `fetch`, in browsers and Node. It
 * remembers the last event id, reconnects after any drop with `Last-Event-ID` (waiting the
 * server's `retry`, clamped, doubled per failed attempt), delivers every event once and in
 * order (resent events, `seq` not above the last one delivered, are dropped), and reports the
 * server's gap signal as a `gap` diagnostic. It ends on `204 No Content`, on a non-retryable
 * HTTP status (an error diagnostic), on `close()`, on the abort signal, or when the consumer
 * stops iterating.
 *
 * @example
 * ```ts
 * for await (const event of connect(`/workspaces/${ws}/sessions/${id}/stream`)) render(event);
 * ```
 */
export function connect(url: string | URL, options: ConnectOptions = {}): NhConnection {
  const controller = new AbortController();
  const outer = options.signal;
  if (outer !== undefined) {
    if (outer.aborted) controller.abort();
    else outer.addEventListener('abort', () => controller.abort(), { once: true });
  }
  const state = { lastEventId: options.lastEventId ?? '', lastSeq: undefined as number | undefined };
  const connection: NhConnection = {
    get lastEventId() {
      return state.lastEventId;
    },
    get lastSeq() {
      return state.lastSeq;
    },
    close() {
      controller.abort();
    },
    [Symbol.asyncIterator]() {
      return run(url, options, controller, state);
    },
  };
  return connection;
}

async function* run(
  url: string | URL,
  options: ConnectOptions,
  controller: AbortController,
  state: { lastEventId: string; lastSeq: number | undefined },
): AsyncGenerator<AgentEvent> {
  const signal = controller.signal;
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const min = options.minRetryMs ?? 100;
  const max = options.maxRetryMs ?? 30_000;
  const clamp = (ms: number): number => Math.min(max, Math.max(min, ms));
  let retry = clamp(options.retryMs ?? 1000);
  const maxAttempts = options.maxAttempts ?? Number.POSITIVE_INFINITY;
  const sink = createDiagnosticSink(options.strict ?? false, options.onDiagnostic);
  // One mapper for the whole session, so per-hop token accounting survives reconnects.
  const envelopes = new NhEnvelopeDecoder(sink);
  const messages = new NhSseMessageDecoder(envelopes, resolveMaxDepth(options.maxDepth));
  let failures = 0;
  // Highest seq accepted from the wire (delivered or waiting in the current batch).
  let seen: number | undefined =
    options.lastEventId !== undefined && /^\d{1,15}$/.test(options.lastEventId)
      ? Number(options.lastEventId)
      : undefined;
  const fail = (message: string): void =>
    sink.report({ code: 'connection', severity: 'error', message, format: 'nativeharness' });

  try {
    while (!signal.aborted) {
      if (failures >= maxAttempts) {
        fail(`${url}: gave up after ${failures} attempts without an event`);
        return;
      }
      let progressed = false;
      let response: Response | undefined;
      try {
        const headers: Record<string, string> = {
          Accept: 'text/event-stream',
          'Cache-Control': 'no-cache',
          ...options.headers,
        };
        if (state.lastEventId !== '') headers['Last-Event-ID'] = toByteString(state.lastEventId);
        response = await doFetch(url, { headers, signal, cache: 'no-store' });
      } catch {
        // a refused or reset connection: try again
      }
      if (signal.aborted) return;
      if (response !== undefined) {
        if (response.status === 204) return;
        const type = response.headers.get('content-type') ?? '';
        if (!response.ok || response.body === null || !type.startsWith('text/event-stream')) {
          await response.body?.cancel().catch(() => {});
          if (!RETRYABLE.has(response.status) || response.ok) {
            fail(
              `${url}: HTTP ${response.status} (${type || 'no content type'}); not an event stream, not retried`,
            );
            return;
          }
        } else {
          const out: AgentEvent[] = [];
          const marks: Array<string | undefined> = [];
          const sse = new SseReader(
            {
              message: (m) => {
                // A resent event (the server replays from the cursor it got): drop it unmapped.
                if (m.id !== undefined && /^\d{1,15}$/.test(m.id) && seen !== undefined) {
                  if (Number(m.id) <= seen) return;
                }
                const start = out.length;
                messages.message(m, out);
                const before = seen;
                for (let i = start; i < out.length; i++) {
                  const seq = out[i]!.seq;
                  if (seq !== undefined && before !== undefined && seq <= before) out.splice(i--, 1);
                  else if (seq !== undefined && (seen === undefined || seq > seen)) seen = seq;
                }
                // The cursor moves with the events the consumer actually receives.
                if (out.length > start) marks[out.length - 1] = m.lastEventId;
                else if (out.length === 0) state.lastEventId = m.lastEventId;
                else marks[out.length - 1] = m.lastEventId;
              },
              // An event cut off by the drop is expected: it comes again after the reconnect.
              diagnostic: (d: Diagnostic) => {
                if (d.code !== 'incomplete_line') sink.report(d);
              },
              retry: (ms) => {
                retry = clamp(ms);
              },
            },
            sseReaderOptions('nativeharness', options, state.lastEventId),
          );
          const body = response.body.getReader();
          try {
            for (;;) {
              const r = await body.read();
              if (r.done) break;
              sse.push(r.value);
              if (out.length > 0) {
                progressed = true;
                failures = 0;
                const batch = out.splice(0, out.length);
                const ids = marks.splice(0, marks.length);
                for (let i = 0; i < batch.length; i++) {
                  const event = batch[i]!;
                  if (event.seq !== undefined) state.lastSeq = event.seq;
                  const id = ids[i];
                  if (id !== undefined) state.lastEventId = id;
                  yield event;
                }
              }
            }
            sse.end();
          } catch {
            // the connection dropped mid-stream: reconnect from the last complete event
          } finally {
            body.cancel().catch(() => {});
          }
          if (signal.aborted) return;
        }
      }
      if (!progressed) failures++;
      const wait = failures === 0 ? retry : clamp(retry * 2 ** Math.min(failures - 1, 16));
      await sleep(wait, signal);
    }
  } finally {
    controller.abort();
  }
}

// Header values must be byte strings; the event id goes on the wire as its UTF-8 bytes (as an
// EventSource sends it), one character per byte, so a non-ASCII id cannot make fetch throw.
function toByteString(value: string): string {
  if (/^[\x00-\x7f]*$/.test(value)) return value;
  let out = '';
  for (const byte of new TextEncoder().encode(value)) out += String.fromCharCode(byte);
  return out;
}
