import { type CheckingCodec, createCheckers, createLineCodec } from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { ampRules } from './check';
import { type AmpDecodeOptions, createAmpRecordDecoder } from './decode';
import { type AmpEncodeOptions, createAmpEncoder } from './encode';
import { AMP_MAX_LINE_BYTES } from './wire';

export { checkAmpEvents } from './check';
export type { AmpDecodeOptions } from './decode';
export type { AmpEncodeOptions } from './encode';
export { AMP_MAX_LINE_BYTES, AMP_RECORD_TYPES, type AmpHints, type AmpRecordType } from './wire';

/** The Amp stream-json codec plus its stream checker. */
export interface AmpCodec extends CheckingCodec<AmpDecodeOptions, AmpEncodeOptions> {
  /**
   * Validates a whole Amp stream: every decoder diagnostic plus stream-json's ordering promises
   * ({@link checkAmpEvents}). Empty means conforming.
   */
  check(input: string | Uint8Array, options?: AmpDecodeOptions): Diagnostic[];
}

const codec = createLineCodec<AmpDecodeOptions, AmpEncodeOptions>({
  format: 'amp',
  maxLineBytes: AMP_MAX_LINE_BYTES,
  createRecordDecoder: createAmpRecordDecoder,
  createEncoder: (options, sink) => createAmpEncoder(options, sink),
});

/**
 * Amp's `amp --execute --stream-json` output: Claude Code compatible `system`/`user`/`assistant`/
 * `result` lines with Amp's own field set (`T-` thread ids, no `uuid`, no cost). The legacy
 * `initial`/`messages` output is reported as `unsupported_version`.
 *
 * @example
 * ```ts
 * import { amp } from 'agentwire/amp';
 * const { events, diagnostics } = amp.parse(text);
 * amp.stringify(events); // === text
 * ```
 */
export const amp: AmpCodec = {
  ...codec,
  ...createCheckers(codec, ampRules),
};
