import {
  type CheckingCodec,
  type CheckingReader,
  type CodecWriter,
  createReader,
  createWriter,
  joinCodec,
  withCheckers,
  withIncompleteRuns,
} from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { jsonStreamChunkDecoder } from '../../framing/json-stream';
import { aguiRules } from './check';
import { type AguiDecodeOptions, createAguiRecordDecoder } from './decode';
import { type AguiEncodeOptions, createAguiEncoder, HELD_RUN_META } from './encode';

export { checkAguiEvents } from './check';
export type { AguiDecodeOptions } from './decode';
export type { AguiEncodeOptions } from './encode';
export {
  AGUI_EVENT_TYPES,
  AGUI_PROTOCOL_VERSION,
  type AguiEventType,
  type AguiHints,
  isAguiEventType,
} from './wire';

/** The AG-UI codec plus its stream checker. */
export interface AguiCodec extends CheckingCodec<AguiDecodeOptions, AguiEncodeOptions> {
  /**
   * Validates a whole AG-UI stream: every decoder diagnostic plus the protocol's ordering rules
   * ({@link checkAguiEvents}). Empty means conforming.
   */
  check(input: string | Uint8Array, options?: AguiDecodeOptions): Diagnostic[];
}

/**
 * The reading half of {@link agui}: `parse`, `decode`, `createDecoder`, the decoder streams and the
 * checkers, the same as `agui`'s. Pick it to read AG-UI without writing it (a viewer): a bundle
 * that imports only `aguiReader` holds no byte of the AG-UI writer.
 */
export const aguiReader: CheckingReader<AguiDecodeOptions> = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ createReader<AguiDecodeOptions>({
    format: 'ag-ui',
    createChunkDecoder: (options, sink) =>
      jsonStreamChunkDecoder('ag-ui', options, sink, createAguiRecordDecoder(options, sink)),
  }),
  /* @__PURE__ */ withIncompleteRuns(aguiRules, 'ag-ui', 'RUN_FINISHED or RUN_ERROR'),
);

/**
 * The writing half of {@link agui}: `stringify`, `encode`, `createEncoder` and `encoderStream`, the
 * same as `agui`'s. Pick it to write AG-UI without reading it (an emitter): a bundle that imports
 * only `aguiWriter` holds no byte of the AG-UI decoder or checker.
 */
export const aguiWriter: CodecWriter<AguiEncodeOptions> = /* @__PURE__ */ createWriter<AguiEncodeOptions>({
  format: 'ag-ui',
  createEncoder: (options, sink) => createAguiEncoder(options, sink),
  heldValues: [HELD_RUN_META],
});

/**
 * AG-UI 1.0, the Agent User Interaction Protocol (`@ag-ui/core` events that CopilotKit and other
 * agent UIs render), as server-sent events (`data: {json}\n\n`) or JSON Lines: read into
 * canonical events, and written from any format's events as a stream AG-UI's own verifier
 * accepts.
 *
 * @example
 * ```ts
 * import { agui } from 'agentwire/ag-ui';
 * const { events } = agui.parse(sseText);
 * agui.stringify(events); // === sseText
 * agui.stringify(events, { framing: 'jsonl' }); // one event per line
 * ```
 */
export const agui: AguiCodec = /* @__PURE__ */ joinCodec(aguiReader, aguiWriter);
