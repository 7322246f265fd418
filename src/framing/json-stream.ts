// The framing shared by the UI protocols (AG-UI, the AI SDK UI message stream): one JSON object
// per event, sent either as server-sent events (`data: {json}\n\n`) or as JSON Lines. The decoder
// tells the two apart from the first byte that is not white space and feeds each event's JSON
// text to the format's record decoder; the writer frames each record in the chosen framing.

import { BlankLines, type ChunkDecoder, type DecodeOptions, isBlankLine, type RecordDecoder } from '../codec';
import type { Diagnostic, DiagnosticSink, Format } from '../diagnostics';
import type { AgentEvent } from '../model';
import { LineSplitter } from './lines';
import { formatSseJsonEvent, type SseHandler, type SseMessage, SseReader } from './sse';

/** How a UI protocol stream is framed: server-sent events or JSON Lines. */
export type JsonFraming = 'sse' | 'jsonl';

/** Options of a decoder of a JSON event stream (SSE or JSON Lines, detected). */
export interface JsonStreamDecodeOptions extends DecodeOptions {
  /** Most bytes of one SSE event, all its lines together. Default 4 MiB. */
  maxEventBytes?: number;
  /**
   * The framing, when the caller knows it (an SSE endpoint, a `.jsonl` file). Absent: decided by
   * the first byte that is not white space (`{` or `[`: JSON Lines, anything else SSE), so a
   * stream whose first line is damaged can be taken for the other framing.
   */
  framing?: JsonFraming;
}

/** Receives one event's JSON text, with the framing it came in. */
export interface FramedRecordDecoder extends RecordDecoder {
  /** Told once, before the first record, which framing the input uses. */
  framing(framing: JsonFraming): void;
}

// Bytes held while only white space has arrived: past this the input is taken as SSE.
const UNDECIDED_LIMIT = 64 * 1024;

/** The framing a first byte (code unit) says: `{` and `[` are JSON Lines, anything else SSE. */
function framingOf(code: number): JsonFraming | undefined {
  if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0xfeff) return undefined;
  if (code === 0xef || code === 0xbb || code === 0xbf) return undefined; // a UTF-8 BOM's bytes
  return code === 0x7b || code === 0x5b ? 'jsonl' : 'sse';
}

function decide(chunk: Uint8Array | string): JsonFraming | undefined {
  const n = chunk.length;
  for (let i = 0; i < n; i++) {
    const code = typeof chunk === 'string' ? chunk.charCodeAt(i) : chunk[i]!;
    const f = framingOf(code);
    if (f !== undefined) return f;
  }
  return undefined;
}

/**
 * A chunk decoder for a stream of JSON events in either framing: SSE through the shared
 * {@link SseReader} (each dispatched event's `data` is one record), JSON Lines through the shared
 * line splitter. The framing is `options.framing`, or else decided by the first byte that is not
 * white space (`{` or `[`: JSON Lines). Line numbers and offsets are the input's, so diagnostics
 * point at the bytes.
 */
export function jsonStreamChunkDecoder(
  format: Format,
  options: JsonStreamDecodeOptions,
  sink: DiagnosticSink,
  records: FramedRecordDecoder,
): ChunkDecoder {
  // The events of the current `push` go to `to.out`: one object the SSE handler reads, made
  // by a class like the handler (see {@link SseRecords}).
  const to = new SseRecords(records, sink);
  let held: Array<Uint8Array | string> = [];
  let heldBytes = 0;
  let reader: { push(chunk: Uint8Array | string): void; end(): void } | undefined;

  const start = (framing: JsonFraming): void => {
    records.framing(framing);
    if (framing === 'sse') {
      const sseOptions: { format: Format; maxLineBytes?: number; maxEventBytes?: number } = { format };
      if (options.maxLineBytes !== undefined) sseOptions.maxLineBytes = options.maxLineBytes;
      if (options.maxEventBytes !== undefined) sseOptions.maxEventBytes = options.maxEventBytes;
      const sse = new SseReader(to, sseOptions);
      reader = { push: (c) => sse.push(c), end: () => sse.end() };
      return;
    }
    const lineOptions: { mode: 'jsonl'; format: Format; maxLineBytes?: number } = { mode: 'jsonl', format };
    if (options.maxLineBytes !== undefined) lineOptions.maxLineBytes = options.maxLineBytes;
    const splitter = new LineSplitter(
      {
        line: (text, line, offset, bytes) => {
          // The one rule for blank lines of every JSON Lines format (src/codec.ts).
          if (text.length === 0 || (text.charCodeAt(0) <= 32 && isBlankLine(text))) blanks.skip(line, offset);
          else records.line(text, line, offset, to.out, bytes);
        },
        diagnostic: (d) => sink.report(d),
      },
      lineOptions,
    );
    const blanks = new BlankLines(format, sink);
    reader = {
      push: (c) => splitter.push(c),
      end: () => {
        splitter.end(options.incompleteLine ?? 'deliver');
        blanks.end();
      },
    };
  };

  if (options.framing !== undefined) start(options.framing);

  const flushHeld = (): void => {
    const chunks = held;
    held = [];
    heldBytes = 0;
    for (const c of chunks) reader!.push(c);
  };

  return {
    push(chunk, target) {
      to.out = target;
      if (reader === undefined) {
        held.push(chunk);
        heldBytes += chunk.length;
        const framing = decide(chunk) ?? (heldBytes > UNDECIDED_LIMIT ? 'sse' : undefined);
        if (framing === undefined) return;
        start(framing);
        flushHeld();
        return;
      }
      reader.push(chunk);
    },
    end(target) {
      to.out = target;
      if (reader === undefined) {
        start('sse');
        flushHeld();
      }
      reader!.end();
      if (options.incompleteLine !== 'hold') records.end(target);
    },
  };
}

/**
 * The SSE reader's handler of a JSON event stream: each event's data is one record, its events
 * appended to `out` (the current `push`'s array). A class, not a literal of closures made per
 * decoder: its methods are the same functions for every decoder, so the reader's optimised
 * per-event code that inlines them holds for the next decoder too (docs/performance.md, "AG-UI
 * and AI SDK codecs", round twelve).
 */
class SseRecords implements SseHandler {
  out: AgentEvent[] = [];
  constructor(
    private readonly records: FramedRecordDecoder,
    private readonly sink: DiagnosticSink,
  ) {}
  message(m: SseMessage): void {
    this.records.line(m.data, m.line, m.offset, this.out);
  }
  diagnostic(d: Diagnostic): void {
    this.sink.report(d);
  }
}

/** One record's JSON text in a framing: `data: {json}\n\n` (SSE) or `{json}\n` (JSON Lines). */
export function frameJson(framing: JsonFraming, json: string): string {
  return framing === 'sse' ? formatSseJsonEvent(undefined, undefined, json) : `${json}\n`;
}
