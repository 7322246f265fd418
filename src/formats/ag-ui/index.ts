import { type CheckingCodec, createCheckers, createCodec, withIncompleteRuns } from '../../codec';
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

const codec = createCodec<AguiDecodeOptions, AguiEncodeOptions>({
  format: 'ag-ui',
  createChunkDecoder: (options, sink) =>
    jsonStreamChunkDecoder('ag-ui', options, sink, createAguiRecordDecoder(options, sink)),
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
export const agui: AguiCodec = {
  ...codec,
  ...createCheckers(codec, withIncompleteRuns(aguiRules, 'ag-ui', 'RUN_FINISHED or RUN_ERROR')),
};
