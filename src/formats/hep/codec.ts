// The HEP v1 codec object (re-exported by index.ts). It lives apart from index.ts, which also
// re-exports the wire records' zod schemas, so that the codec registry and the CLI, importing
// this file, never load zod (docs/performance.md "The CLI against jq").
import { type CheckingCodec, createCheckers, createCodec, lineChunkDecoder } from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { hepRules } from './check';
import { createHepRecordDecoder, type HepDecodeOptions } from './decode';
import { createHepEncoder, type HepEncodeOptions } from './encode';
import { HEP, HEP_HELD_INPUT } from './wire';

/** The HEP v1 codec plus its stream checker. */
export interface HepCodec extends CheckingCodec<HepDecodeOptions, HepEncodeOptions> {
  /**
   * Validates a whole HEP stream: every decoder diagnostic (schema, JSON, bounds on lines) plus
   * violations of HEP's ordering guarantees (`order`) and writer bounds. Empty means conforming.
   */
  check(input: string | Uint8Array, options?: HepDecodeOptions): Diagnostic[];
}

const codec = createCodec<HepDecodeOptions, HepEncodeOptions>({
  format: HEP,
  createChunkDecoder: (options, sink) =>
    lineChunkDecoder(HEP, 'jsonl', options, sink, createHepRecordDecoder(options, sink)),
  createEncoder: createHepEncoder,
  heldInput: HEP_HELD_INPUT,
});

/**
 * HEP v1 — the JSON Lines event stream of the `fa` CLI agent (`fa --output events`).
 *
 * @example
 * ```ts
 * import { hep } from 'agentwire/hep';
 * const { events, diagnostics } = hep.parse(text);
 * const bytes = hep.stringify(events); // === text for a conforming stream
 * ```
 */
export const hep: HepCodec = {
  ...codec,
  ...createCheckers(codec, hepRules),
};
