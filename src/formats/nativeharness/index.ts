import { type ChunkDecoder, type Codec, createCheck, createCodec, lineChunkDecoder } from '../../codec';
import type { Diagnostic, DiagnosticSink } from '../../diagnostics';
import { isBomByte, isBomChar } from '../../framing/bom';
import { JsonArrayReader } from '../../framing/json-array';
import { DEFAULT_MAX_EVENT_BYTES } from '../../framing/sse';
import { resolveMaxDepth } from '../../json';
import type { AgentEvent } from '../../model';
import { checkNativeharnessEvents } from './check';
import {
  type NhDecodeOptions,
  NhEnvelopeDecoder,
  type NhFraming,
  NhJsonlRecordDecoder,
  nhSseDecoder,
} from './decode';
import { type NhEncodeOptions, NhEncoder } from './encode';

export {
  DEFAULT_MAX_EVENT_BYTES,
  formatSseEvent,
  type SseFields,
  type SseHandler,
  type SseMessage,
  SseReader,
  type SseReaderOptions,
} from '../../framing/sse';
export { checkNativeharnessEvents } from './check';
export { type ConnectOptions, connect, type NhConnection } from './client';
export {
  type NhDecodeOptions,
  NhEnvelopeDecoder,
  type NhFraming,
  NhJsonlRecordDecoder,
  NhSseMessageDecoder,
  type SseOrigin,
} from './decode';
export { type NhEncodeOptions, NhEncoder } from './encode';
// The event specs are the decoder's internals: not part of the API.
export {
  isNhEventType,
  NH_ENVELOPE_KEYS,
  NH_EVENT_TYPES,
  NH_PAYLOAD_KEYS,
  NH_PAYLOAD_KEYS_BY_TYPE,
  NH_PROTOCOL_VERSION,
  NH_USAGE_KEYS,
  NhApprovalOption,
  NhEnvelope,
  type NhEnvelopeRecord,
  type NhEventType,
  type NhPayload,
  NhPayloads,
  NhQuestion,
  NhQuestionOption,
  NhUsage,
  validateNhEnvelope,
  validateNhPayload,
} from './schema';

const FORMAT = 'nativeharness' as const;

// Leading bytes that do not decide the framing: whitespace, and the parts of one BOM.
const BLANK = new Set([0x20, 0x09, 0x0d, 0x0a]);
/** Past this many blank leading bytes, the framing defaults to SSE (blank lines are SSE). */
const DETECT_LIMIT = 64 * 1024;

function detect(chunk: Uint8Array | string, position: number): NhFraming | undefined | 'blank' {
  if (typeof chunk === 'string') {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (isBomChar(c, position + i)) continue;
      if (BLANK.has(c)) continue;
      return c === 0x5b ? 'json' : c === 0x7b ? 'jsonl' : 'sse';
    }
    return 'blank';
  }
  for (let i = 0; i < chunk.length; i++) {
    const c = chunk[i]!;
    if (isBomByte(c, position + i)) continue;
    if (BLANK.has(c)) continue;
    return c === 0x5b ? 'json' : c === 0x7b ? 'jsonl' : 'sse';
  }
  return 'blank';
}

function framedDecoder(framing: NhFraming, options: NhDecodeOptions, sink: DiagnosticSink): ChunkDecoder {
  const envelopes = new NhEnvelopeDecoder(sink);
  const maxDepth = resolveMaxDepth(options.maxDepth);
  if (framing === 'jsonl') {
    return lineChunkDecoder(FORMAT, 'jsonl', options, sink, new NhJsonlRecordDecoder(envelopes, maxDepth));
  }
  if (framing === 'json') {
    let target: AgentEvent[] = [];
    const reader = new JsonArrayReader(
      {
        element: (text, line, offset) => envelopes.text(text, line, offset, maxDepth, target),
        diagnostic: (d) => sink.report(d),
      },
      { format: FORMAT, maxElementBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES },
    );
    return {
      push(chunk, out) {
        target = out;
        reader.push(chunk);
      },
      end(out) {
        target = out;
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
export interface NativeharnessCodec extends Codec<NhDecodeOptions, NhEncodeOptions> {
  /**
   * Validates a whole stream or log: every decoder diagnostic (schema, seq order, bounds, SSE
   * framing) plus the protocol's ordering rules ({@link checkNativeharnessEvents}). Empty means
   * conforming.
   */
  check(input: string | Uint8Array, options?: NhDecodeOptions): Diagnostic[];
}

const codec = createCodec<NhDecodeOptions, NhEncodeOptions>({
  format: FORMAT,
  createChunkDecoder: createNhChunkDecoder,
  createEncoder: (options, sink) => new NhEncoder(options, sink),
});

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
export const nativeharness: NativeharnessCodec = {
  ...codec,
  check: createCheck(codec, checkNativeharnessEvents),
};
