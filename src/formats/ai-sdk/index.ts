import {
  type CheckingCodec,
  type CheckingReader,
  type CodecWriter,
  createReader,
  createWriter,
  type EventSource,
  joinCodec,
  withCheckers,
  withIncompleteRuns,
} from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { jsonStreamChunkDecoder } from '../../framing/json-stream';
import { aiSdkRules } from './check';
import { type AiSdkDecodeOptions, createAiSdkRecordDecoder } from './decode';
import { type AiSdkEncodeOptions, createAiSdkEncoder } from './encode';
import { AISDK_HEADERS } from './wire';

export { checkAiSdkEvents } from './check';
export type { AiSdkDecodeOptions } from './decode';
export type { AiSdkEncodeOptions } from './encode';
export {
  AISDK_CHUNK_TYPES,
  AISDK_HEADERS,
  AISDK_STREAM_HEADER,
  AISDK_STREAM_VERSION,
  type AiSdkChunkType,
  type AiSdkHints,
  isAiSdkChunkType,
} from './wire';

/** The AI SDK UI message stream writer ({@link aisdkWriter}): with a `Response` helper. */
export interface AiSdkWriter extends CodecWriter<AiSdkEncodeOptions> {
  /**
   * A `Response` streaming `events` as a UI message stream (SSE, `x-vercel-ai-ui-message-stream:
   * v1`): what a route handler returns to `useChat`. Any format's events; browser-safe.
   */
  toResponse(events: EventSource, init?: ResponseInit & { encode?: AiSdkEncodeOptions }): Response;
}

/** The AI SDK UI message stream codec plus its stream checker and a `Response` helper. */
export interface AiSdkCodec extends CheckingCodec<AiSdkDecodeOptions, AiSdkEncodeOptions>, AiSdkWriter {
  /**
   * Validates a whole UI message stream: every decoder diagnostic plus what the `ai` package's
   * reader requires ({@link checkAiSdkEvents}). Empty means conforming.
   */
  check(input: string | Uint8Array, options?: AiSdkDecodeOptions): Diagnostic[];
}

/**
 * The reading half of {@link aisdk}: `parse`, `decode`, `createDecoder`, the decoder streams and
 * the checkers, the same as `aisdk`'s. Pick it to read UI message streams without writing them (a
 * client): a bundle that imports only `aisdkReader` holds no byte of the AI SDK writer.
 */
export const aisdkReader: CheckingReader<AiSdkDecodeOptions> = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ createReader<AiSdkDecodeOptions>({
    format: 'ai-sdk',
    createChunkDecoder: (options, sink) =>
      jsonStreamChunkDecoder('ai-sdk', options, sink, createAiSdkRecordDecoder(options, sink)),
  }),
  /* @__PURE__ */ withIncompleteRuns(aiSdkRules, 'ai-sdk', 'its finish (or error, abort) chunk'),
);

const writer = /* @__PURE__ */ createWriter<AiSdkEncodeOptions>({
  format: 'ai-sdk',
  createEncoder: (options, sink) => createAiSdkEncoder(options, sink),
});

function toResponse(
  events: EventSource,
  init: ResponseInit & { encode?: AiSdkEncodeOptions } = {},
): Response {
  const { encode, headers, ...rest } = init;
  const pieces = writer.encode(events, { ...encode, framing: 'sse' })[Symbol.asyncIterator]();
  const bytes = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const r = await pieces.next();
      if (r.done) controller.close();
      else controller.enqueue(bytes.encode(r.value));
    },
    async cancel() {
      await pieces.return?.();
    },
  });
  const h = new Headers(headers);
  for (const [k, v] of Object.entries(AISDK_HEADERS)) if (!h.has(k)) h.set(k, v);
  return new Response(body, { status: 200, ...rest, headers: h });
}

/**
 * The writing half of {@link aisdk}: `stringify`, `encode`, `createEncoder`, `encoderStream` and
 * `toResponse`, the same as `aisdk`'s. Pick it to write UI message streams without reading them (a
 * route handler for `useChat`): a bundle that imports only `aisdkWriter` holds no byte of the AI
 * SDK decoder or checker.
 */
export const aisdkWriter: AiSdkWriter = /* @__PURE__ */ joinCodec(writer, { toResponse });

/**
 * The Vercel AI SDK UI message stream (`ai` v5+ `UIMessageChunk`s, what `useChat` reads), as
 * server-sent events closed by `data: [DONE]` or as JSON Lines: read into canonical events, and
 * written from any format's events as a stream the `ai` package's own reader builds messages from.
 *
 * @example
 * ```ts
 * import { aisdk } from 'agentwire/ai-sdk';
 * export const POST = () => aisdk.toResponse(events); // a route handler for useChat
 * aisdk.parse(sseText).events; // canonical events
 * ```
 */
export const aisdk: AiSdkCodec = /* @__PURE__ */ joinCodec(aisdkReader, aisdkWriter);
