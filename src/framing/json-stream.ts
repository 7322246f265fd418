// The framing shared by the UI protocols (AG-UI, the AI SDK UI message stream): one JSON object
// per event, sent either as server-sent events (`data: {json}\n\n`) or as JSON Lines. The decoder
// tells the two apart from the first byte that is not white space and feeds each event's JSON
// text to the format's record decoder; the writer frames each record in the chosen framing.

import {
  BlankLines,
  type ChunkDecoder,
  type DecodeOptions,
  type LineDecoderState,
  lineDiagnostic,
  type RecordDecoder,
  readRecord,
  recordOrBlank,
} from '../codec';
import { LD_BLANKS, LD_OUT } from '../codec-slots';
import type { DiagnosticSink, Format } from '../diagnostics';
import { endInput, newSplitState, pushChunk, type SplitState } from './lines';
import {
  endSse,
  newSseState,
  pushSse,
  type SseState,
  sseBlockLine,
  sseBlockOffset,
  sseReaderOptions,
} from './sse';

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

// Bytes held while only white space has arrived (64 KiB): past this the input is taken as SSE.
// A literal, not `64 * 1024`: esbuild keeps a product it is not sure of in every bundle of this
// module, the writers' too, where nothing reads it.
const UNDECIDED_LIMIT = 65_536;

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
  // The events of the current `push` go to `to[LD_OUT]`.
  const to: LineDecoderState = [[], records, new BlankLines(format, sink), sink];
  let held: Array<Uint8Array | string> = [];
  let heldBytes = 0;
  let sse: SseState | undefined;
  let lines: SplitState | undefined;

  const start = (framing: JsonFraming): void => {
    records.framing(framing);
    if (framing === 'sse') {
      // The reader's diagnostics (a rare path) go to the sink through the handler; events to
      // `eventRecord`.
      sse = newSseState(
        { diagnostic: (d) => sink.report(d) },
        eventRecord,
        to,
        sseReaderOptions(format, options),
      );
      return;
    }
    const lineOptions: { mode: 'jsonl'; format: Format; maxLineBytes?: number } = { mode: 'jsonl', format };
    if (options.maxLineBytes !== undefined) lineOptions.maxLineBytes = options.maxLineBytes;
    lines = newSplitState(to, recordOrBlank, undefined, lineDiagnostic, lineOptions);
  };
  const push = (chunk: Uint8Array | string): void => {
    if (sse !== undefined) pushSse(sse, chunk);
    else pushChunk(lines!, chunk);
  };

  if (options.framing !== undefined) start(options.framing);

  const flushHeld = (): void => {
    const chunks = held;
    held = [];
    heldBytes = 0;
    for (const c of chunks) push(c);
  };

  return {
    push(chunk, target) {
      to[LD_OUT] = target;
      if (sse === undefined && lines === undefined) {
        held.push(chunk);
        heldBytes += chunk.length;
        const framing = decide(chunk) ?? (heldBytes > UNDECIDED_LIMIT ? 'sse' : undefined);
        if (framing === undefined) return;
        start(framing);
        flushHeld();
        return;
      }
      push(chunk);
    },
    end(target) {
      to[LD_OUT] = target;
      if (sse === undefined && lines === undefined) {
        start('sse');
        flushHeld();
      }
      if (sse !== undefined) endSse(sse);
      else {
        endInput(lines!, options.incompleteLine ?? 'deliver');
        to[LD_BLANKS].end();
      }
      if (options.incompleteLine !== 'hold') records.end(target);
    },
  };
}

/*
 * What a decoder of a JSON event stream reads with, in either framing, is a
 * {@link LineDecoderState} (src/codec.ts): its record decoder, its diagnostic sink, the blank lines
 * of JSON Lines, and the current `push`'s output array. The SSE reader and the splitter call
 * {@link eventRecord} and codec.ts's {@link recordOrBlank} with it: the same functions for every
 * stream, so the framing's optimised code may inline them and embed the record decoder's hidden
 * classes, which `createReader`'s quiet decoder keeps alive. A function made per stream (round
 * fourteen's `bind`) was the call target that code embedded, and it died with its stream
 * (docs/performance.md, "Round thirty-four").
 */

// Each SSE event's data is one record.
function eventRecord(to: LineDecoderState, s: SseState, _event: string | undefined, data: string): void {
  readRecord(to, data, sseBlockLine(s), sseBlockOffset(s), undefined);
}

/**
 * One record's JSON text in a framing: `data: {json}\n\n` (SSE) or `{json}\n` (JSON Lines). The
 * SSE event is `formatSseJsonEvent`'s with no `id` and no `event` line, spelled here: those two
 * lines' checks (and their refusal) would be bundled with every writer that frames JSON, and none
 * of them writes either line.
 */
export function frameJson(framing: JsonFraming, json: string): string {
  return framing === 'sse' ? `data: ${json}\n\n` : `${json}\n`;
}

/** Records' JSON texts (a kept event's records read before it, `hints.before`), each framed. */
export function frameEach(framing: JsonFraming, texts: readonly string[] | undefined): string {
  let out = '';
  if (texts !== undefined) for (const json of texts) out += frameJson(framing, json);
  return out;
}
