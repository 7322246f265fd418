// The highbar codec object (re-exported by index.ts). It lives apart from index.ts, which also
// re-exports the wire records' zod schemas, so that the codec registry and the CLI, importing
// this file, never load zod (docs/performance.md "The CLI against jq").
import { type CheckingCodec, createCheckers, createCodec, slotsChunkDecoder } from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import type { AgentEvent } from '../../model';
import { highbarRules } from './check';
import { declaredTools, matchContext } from './declared';
import { type HighbarDecodeOptions, highbarRecordSlots } from './decode';
import { createHighbarEncoder, type HighbarEncodeOptions } from './encode';
import { HIGHBAR } from './wire';

/** The highbar trace codec plus declared tools and test correlation. */
export interface HighbarCodec extends CheckingCodec<HighbarDecodeOptions, HighbarEncodeOptions> {
  /** The tools a trace declares, as highbar computes them (see {@link declaredTools}). */
  declaredTools(events: Iterable<AgentEvent>): string[];
  /**
   * Validates a whole trace: every decoder diagnostic plus what highbar expects of an emitter
   * ({@link checkHighbarEvents}). Empty (or only `info`) means conforming.
   */
  check(input: string | Uint8Array, options?: HighbarDecodeOptions): Diagnostic[];
  /** The events that belong to a test (see {@link matchContext}). */
  matchContext(
    events: Iterable<AgentEvent>,
    values: Record<string, unknown>,
    keys?: readonly string[],
  ): AgentEvent[];
}

const codec = createCodec<HighbarDecodeOptions, HighbarEncodeOptions>({
  format: HIGHBAR,
  createChunkDecoder: (options, sink) =>
    slotsChunkDecoder(HIGHBAR, options, sink, highbarRecordSlots(options, sink)),
  createEncoder: createHighbarEncoder,
});

/**
 * The highbar trace contract v1 (and v0 lines): what an agent under test appends to the file
 * named by `HIGHBAR_TRACES_URL` so highbar can check its tool calls.
 *
 * @example
 * ```ts
 * import { highbar } from 'agentwire/highbar';
 * const { events, diagnostics } = highbar.parse(text);
 * highbar.stringify(events); // === text for lines in the contract's shape
 * highbar.matchContext(events, { test: id }); // the records of one test
 * ```
 */
export const highbar: HighbarCodec = {
  ...codec,
  declaredTools,
  matchContext,
  ...createCheckers(codec, highbarRules),
};
