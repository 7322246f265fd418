import { type ChunkDecoder, type Codec, createCodec, lineChunkDecoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import { DEFAULT_MAX_DEPTH } from '../../json';
import type { AgentEvent } from '../../model';
import {
  type NhDecodeOptions,
  NhEnvelopeDecoder,
  type NhFraming,
  NhJsonArrayReader,
  NhJsonlRecordDecoder,
  nhSseDecoder,
} from './decode';
import { type NhEncodeOptions, NhEncoder } from './encode';
import { DEFAULT_MAX_EVENT_BYTES } from './sse';

export { type ConnectOptions, connect, type NhConnection } from './client';
export {
  type NhDecodeOptions,
  NhEnvelopeDecoder,
  type NhFraming,
  NhJsonArrayReader,
  NhJsonlRecordDecoder,
  NhSseMessageDecoder,
  type SseOrigin,
} from './decode';
export { type NhEncodeOptions, NhEncoder } from './encode';
export * from './schema';
export {
  DEFAULT_MAX_EVENT_BYTES,
  formatSseEvent,
  type SseFields,
  type SseHandler,
  type SseMessage,
  SseReader,
  type SseReaderOptions,
} from './sse';

const FORMAT = 'nativeharness' as const;

// Leading bytes that do not decide the framing: whitespace, and the parts of one BOM.
const BLANK = new Set([0x20, 0x09, 0x0d, 0x0a]);
/** Past this many blank leading bytes, the framing defaults to SSE (blank lines are SSE). */
const DETECT_LIMIT = 64 * 1024;

function detect(chunk: Uint8Array | string, position: number): NhFraming | undefined | 'blank' {
  if (typeof chunk === 'string') {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c === 0xfeff && position + i === 0) continue;
      if (BLANK.has(c)) continue;
      return c === 0x5b ? 'json' : c === 0x7b ? 'jsonl' : 'sse';
    }
    return 'blank';
  }
  for (let i = 0; i < chunk.length; i++) {
    const c = chunk[i]!;
    const at = position + i;
    if (at < 3 && c === [0xef, 0xbb, 0xbf][at]) continue;
    if (BLANK.has(c)) continue;
    return c === 0x5b ? 'json' : c === 0x7b ? 'jsonl' : 'sse';
  }
  return 'blank';
}

function framedDecoder(framing: NhFraming, options: NhDecodeOptions, sink: DiagnosticSink): ChunkDecoder {
  const envelopes = new NhEnvelopeDecoder(sink);
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (framing === 'jsonl') {
    return lineChunkDecoder(FORMAT, 'jsonl', options, sink, new NhJsonlRecordDecoder(envelopes, maxDepth));
  }
  if (framing === 'json') {
    const reader = new NhJsonArrayReader(
      envelopes,
      maxDepth,
      options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
    );
    // ignoreBOM keeps a BOM as a character, so the reader's byte offsets count it.
    const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
    let warned = false;
    const text = (chunk: Uint8Array | string, stream: boolean): string => {
      if (typeof chunk === 'string') return chunk;
      const t = utf8.decode(chunk, { stream });
      if (!warned && t.indexOf('\uFFFD') !== -1 && !containsReplacement(chunk)) {
        warned = true;
        sink.report({
          code: 'invalid_utf8',
          severity: 'error',
          message: 'the JSON array is not valid UTF-8; invalid bytes were read as U+FFFD',
          format: FORMAT,
        });
      }
      return t;
    };
    return {
      push(chunk, out) {
        reader.push(text(chunk, true), out);
      },
      end(out) {
        reader.push(text(new Uint8Array(0), false), out);
        if (options.incompleteLine !== 'hold') reader.end();
      },
    };
  }
  const target: { out: AgentEvent[] } = { out: [] };
  const reader = nhSseDecoder(options, envelopes, sink, target);
  return {
    push(chunk, out) {
      target.out = out;
      reader.push(chunk);
    },
    end(out) {
      target.out = out;
      if (options.incompleteLine !== 'hold') reader.end();
    },
  };
}

function containsReplacement(bytes: Uint8Array): boolean {
  for (let i = bytes.indexOf(0xef); i !== -1 && i + 2 < bytes.length; i = bytes.indexOf(0xef, i + 1)) {
    if (bytes[i + 1] === 0xbf && bytes[i + 2] === 0xbd) return true;
  }
  return false;
}

/** The chunk decoder of nativeharness: the given framing, or the one the first bytes show. */
export function createNhChunkDecoder(options: NhDecodeOptions, sink: DiagnosticSink): ChunkDecoder {
  if (options.framing !== undefined) return framedDecoder(options.framing, options, sink);
  let inner: ChunkDecoder | undefined;
  let held: Array<Uint8Array | string> = [];
  let position = 0;
  const choose = (framing: NhFraming, out: AgentEvent[]): ChunkDecoder => {
    const decoder = framedDecoder(framing, options, sink);
    for (const chunk of held) decoder.push(chunk, out);
    held = [];
    return decoder;
  };
  return {
    push(chunk, out) {
      if (inner !== undefined) return inner.push(chunk, out);
      const found = detect(chunk, position);
      position += chunk.length;
      held.push(typeof chunk === 'string' ? chunk : chunk.slice());
      if (found !== 'blank' && found !== undefined) inner = choose(found, out);
      else if (position > DETECT_LIMIT) inner = choose('sse', out);
    },
    end(out) {
      if (inner === undefined) {
        if (held.length === 0) return;
        inner = choose('sse', out);
      }
      inner.end(out);
    },
  };
}

/** The nativeharness codec: options pick the framing (`framing`), detected when decoding. */
export type NativeharnessCodec = Codec<NhDecodeOptions, NhEncodeOptions>;

/**
 * nativeharness — the session event envelope of a web harness: SSE (`/stream`), a JSON array
 * (`/events`) or JSON Lines (the persisted log). See docs/protocols/nativeharness.md.
 *
 * @example
 * ```ts
 * import { nativeharness } from 'agentwire/nativeharness';
 * const { events } = nativeharness.parse(sseText); // framing detected
 * const log = nativeharness.stringify(events, { framing: 'jsonl' });
 * ```
 */
export const nativeharness: NativeharnessCodec = createCodec<NhDecodeOptions, NhEncodeOptions>({
  format: FORMAT,
  createChunkDecoder: createNhChunkDecoder,
  createEncoder: (options, sink) => new NhEncoder(options, sink),
});
