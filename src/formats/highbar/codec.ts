// The highbar codec object (re-exported by index.ts). It lives apart from index.ts, which also
// re-exports the wire records' zod schemas, so that the codec registry and the CLI, importing
// this file, never load zod (docs/performance.md "The CLI against jq").
import {
  type CheckingCodec,
  type CheckingReader,
  type CodecWriter,
  createReader,
  createWriter,
  joinCodec,
  slotsChunkDecoder,
  withCheckers,
} from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import type { AgentEvent } from '../../model';
import { highbarRules } from './check';
import { declaredTools, matchContext } from './declared';
import { type HighbarDecodeOptions, highbarRecordSlots } from './decode';
import { createHighbarEncoder, type HighbarEncodeOptions } from './encode';
import { HIGHBAR } from './wire';

/** The highbar trace reader ({@link highbarReader}): with declared tools and test correlation. */
export interface HighbarReader extends CheckingReader<HighbarDecodeOptions> {
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

/** The highbar trace codec plus declared tools and test correlation. */
export interface HighbarCodec
  extends CheckingCodec<HighbarDecodeOptions, HighbarEncodeOptions>,
    HighbarReader {}

/**
 * The reading half of {@link highbar}: `parse`, `decode`, `createDecoder`, the decoder streams, the
 * checkers, `declaredTools` and `matchContext`, the same as `highbar`'s. Pick it to read traces
 * without writing them (a viewer, a test harness): a bundle that imports only `highbarReader` holds
 * no byte of the highbar writer.
 */
export const highbarReader: HighbarReader = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ joinCodec(
    /* @__PURE__ */ createReader<HighbarDecodeOptions>({
      format: HIGHBAR,
      createChunkDecoder: (options, sink) =>
        slotsChunkDecoder(HIGHBAR, options, sink, highbarRecordSlots(options, sink)),
    }),
    { declaredTools, matchContext },
  ),
  highbarRules,
);

/**
 * The writing half of {@link highbar}: `stringify`, `encode`, `createEncoder` and `encoderStream`,
 * the same as `highbar`'s. Pick it to write traces without reading them (an agent under test): a
 * bundle that imports only `highbarWriter` holds no byte of the highbar decoder or checker.
 */
export const highbarWriter: CodecWriter<HighbarEncodeOptions> =
  /* @__PURE__ */ createWriter<HighbarEncodeOptions>({
    format: HIGHBAR,
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
export const highbar: HighbarCodec = /* @__PURE__ */ joinCodec(highbarReader, highbarWriter);
