import { type CheckingCodec, createCheckers, createLineCodec } from '../../codec';
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

const codec = createLineCodec<CopilotDecodeOptions, CopilotEncodeOptions>({
  format: 'copilot',
  maxLineBytes: COPILOT_MAX_LINE_BYTES,
  createRecordDecoder: createCopilotRecordDecoder,
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
export const copilot: CopilotCodec = {
  ...codec,
  ...createCheckers(codec, copilotRules),
};
