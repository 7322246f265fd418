import {
  type CheckingCodec,
  type CheckingReader,
  type CodecWriter,
  createLineReader,
  createWriter,
  joinCodec,
  withCheckers,
} from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { copilotRules } from './check';
import { type CopilotDecodeOptions, createCopilotRecordDecoder } from './decode';
import { type CopilotEncodeOptions, createCopilotEncoder } from './encode';
import { COPILOT_MAX_LINE_BYTES } from './wire';

export { checkCopilotEvents } from './check';
export type { CopilotDecodeOptions } from './decode';
export type { CopilotEncodeOptions } from './encode';
export {
  COPILOT_MAX_LINE_BYTES,
  COPILOT_RECORD_TYPES,
  type CopilotHints,
  type CopilotRecordType,
  isCopilotRecordType,
} from './wire';

/** The Copilot session event codec plus its stream checker. */
export interface CopilotCodec extends CheckingCodec<CopilotDecodeOptions, CopilotEncodeOptions> {
  /**
   * Validates a whole Copilot event stream: every decoder diagnostic plus the schema's ordering
   * promises ({@link checkCopilotEvents}). Empty means conforming.
   */
  check(input: string | Uint8Array, options?: CopilotDecodeOptions): Diagnostic[];
}

/**
 * The reading half of {@link copilot}: `parse`, `decode`, `createDecoder`, the decoder streams and
 * the checkers, the same as `copilot`'s. Pick it to read Copilot without writing it (a viewer): a
 * bundle that imports only `copilotReader` holds no byte of the Copilot writer.
 */
export const copilotReader: CheckingReader<CopilotDecodeOptions> = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ createLineReader<CopilotDecodeOptions>({
    format: 'copilot',
    maxLineBytes: COPILOT_MAX_LINE_BYTES,
    createRecordDecoder: createCopilotRecordDecoder,
  }),
  copilotRules,
);

/**
 * The writing half of {@link copilot}: `stringify`, `encode`, `createEncoder` and `encoderStream`,
 * the same as `copilot`'s. Pick it to write Copilot without reading it (an emitter): a bundle that
 * imports only `copilotWriter` holds no byte of the Copilot decoder or checker.
 */
export const copilotWriter: CodecWriter<CopilotEncodeOptions> =
  /* @__PURE__ */ createWriter<CopilotEncodeOptions>({
    format: 'copilot',
    createEncoder: (options, sink) => createCopilotEncoder(options, sink),
  });

/**
 * GitHub Copilot CLI / SDK session events (`github/copilot-sdk` schema): one event envelope
 * `{id, parentId, timestamp, type, data, agentId?, ephemeral?}` per line, as the SDK streams
 * them or as the CLI keeps them on disk (`type` first).
 *
 * @example
 * ```ts
 * import { copilot } from 'agentwire/copilot';
 * const { events, diagnostics } = copilot.parse(text);
 * copilot.stringify(events); // === text
 * ```
 */
export const copilot: CopilotCodec = /* @__PURE__ */ joinCodec(copilotReader, copilotWriter);
