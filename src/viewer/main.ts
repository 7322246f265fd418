// biome-ignore-all assist/source/organizeImports: ./jitless must be evaluated first (no schema may be built before zod is told not to generate code).
import { ZOD_CONFIG } from './jitless';
import { connect } from '../formats/nativeharness/client';
import type { AgentEvent } from '../model';
import { Viewer } from './viewer';

// The page script of `agentwire serve` (bundled to dist/viewer.global.js): reads the session's
// stream with agentwire's own connect(), which resumes after drops, and draws it. Events are
// queued as they arrive and drawn in slices of a few milliseconds per frame, so a stream of any
// length never holds the page.

/** Milliseconds of drawing per frame before the rest waits for the next one. */
const FRAME_BUDGET_MS = 8;
/** Queued events past which reading waits for drawing to catch up. */
const HIGH_WATER = 5000;
/** Most bytes of the stream decoded between two pauses for the page. */
const SLICE_BYTES = 16_384;
/**
 * Most bytes of one SSE line and event the page reads. connect()'s defaults (1 MiB, 4 MiB) are
 * below what serve writes for a line of the agents it reads (16 MiB: a tool's whole output),
 * and an event past them never reaches the page (its tool would show running for ever).
 */
const MAX_EVENT_BYTES = 64 * 1024 * 1024;

let lastYield = 0;
// Lets the page draw and answer input: a task boundary (scheduler.yield where there is one).
function yieldToPage(): Promise<void> {
  lastYield = performance.now();
  const s = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (s?.yield !== undefined)
    return s.yield().then(() => {
      lastYield = performance.now();
    });
  return new Promise((resolve) =>
    setTimeout(() => {
      lastYield = performance.now();
      resolve();
    }, 0),
  );
}

function meta(name: string): string | undefined {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content;
}

if (ZOD_CONFIG.jitless !== true) throw new Error('zod must run jitless under the page CSP');
const stream = meta('agentwire-stream') ?? '';
const viewer = new Viewer(document.body);
const queue: AgentEvent[] = [];
let head = 0;
let scheduled = false;
let drained: (() => void) | undefined;
// The server answered 204: the session is finished, every event of it is in the queue.
let finished = false;

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(draw);
}

function draw(): void {
  scheduled = false;
  const until = performance.now() + FRAME_BUDGET_MS;
  let n = 0;
  while (head < queue.length) {
    viewer.handle(queue[head++]!);
    // The clock is read every few events: reading it costs more than most events.
    if (++n % 32 === 0 && performance.now() > until) break;
  }
  if (head === queue.length) {
    queue.length = 0;
    head = 0;
    if (finished) viewer.sessionEnded();
  }
  viewer.touch();
  viewer.flush();
  viewer.scrollToEnd();
  document.body.dataset.events = String(viewer.eventCount);
  if (queue.length - head < HIGH_WATER && drained !== undefined) {
    const go = drained;
    drained = undefined;
    go();
  }
  if (head < queue.length) schedule();
}

// A fetch that tells the indicator what the connection is doing: connect() itself only yields
// events, and reconnects quietly.
let connectedOnce = false;
const tracked: typeof fetch = async (input, init) => {
  viewer.setConnection(connectedOnce ? 'reconnecting' : 'connecting');
  const response = await fetch(input, init);
  if (response.status === 204) {
    viewer.setConnection('ended');
    finished = true;
    schedule();
    return response;
  }
  // The page's last event id is above what the server has (`unknown_cursor`): its log began
  // again (a restarted server reading its input from the start, not there yet). The protocol
  // says start again: the page is loaded afresh and reads the stream from its start, the same
  // picture with nothing twice (a resume from that id would wait or skip).
  if (response.status === 409 && connectedOnce) {
    viewer.setConnection('reconnecting', 'the server began its stream again: reading it from the start');
    location.reload();
    return response;
  }
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || response.body === null || !type.startsWith('text/event-stream')) {
    viewer.setConnection(response.status >= 500 ? 'reconnecting' : 'error', `HTTP ${response.status}`);
    return response;
  }
  connectedOnce = true;
  viewer.setConnection('live');
  const reader = response.body.getReader();
  let pending: Uint8Array | undefined;
  const body = new ReadableStream<Uint8Array>({
    // Handed on in slices, with a pause for the page now and then: connect() decodes a chunk in
    // one go, and a backlog arrives in chunks of megabytes.
    async pull(controller) {
      try {
        if (performance.now() - lastYield > FRAME_BUDGET_MS) await yieldToPage();
        if (pending === undefined || pending.length === 0) {
          const r = await reader.read();
          if (r.done) {
            viewer.setConnection('reconnecting');
            controller.close();
            return;
          }
          pending = r.value;
        }
        controller.enqueue(pending.subarray(0, SLICE_BYTES));
        pending = pending.subarray(SLICE_BYTES);
      } catch (error) {
        viewer.setConnection('reconnecting');
        controller.error(error);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
};

async function source(): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const r = await fetch('/info', { cache: 'no-store' });
      if (r.ok) {
        const info = (await r.json()) as { format?: string | null; workspace?: string; session?: string };
        viewer.setSource(info);
        if (typeof info.format === 'string') return;
      }
    } catch {
      // the server is restarting: ask again
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function main(): Promise<void> {
  void source();
  const connection = connect(stream, {
    fetch: tracked,
    retryMs: 500,
    maxRetryMs: 5000,
    maxLineBytes: MAX_EVENT_BYTES,
    maxEventBytes: MAX_EVENT_BYTES,
    onDiagnostic: (d) => {
      if (d.code === 'gap') viewer.setGap(d.message);
      else if (d.code === 'connection') viewer.setConnection('error', d.message);
      // Larger still: the event is skipped, and the page says so.
      else if (d.code === 'line_too_long' || d.code === 'event_too_large') viewer.setSkipped(d.message);
    },
  });
  for await (const event of connection) {
    queue.push(event);
    schedule();
    if (queue.length - head >= HIGH_WATER) await new Promise<void>((resolve) => (drained = resolve));
  }
  schedule();
}

main().catch((error: unknown) =>
  viewer.setConnection('error', error instanceof Error ? error.message : String(error)),
);
