import { type Codec, createCheck, createCodec, lineChunkDecoder } from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import type { AgentEvent } from '../../model';
import { checkHighbarEvents } from './check';
import { declaredTools, matchContext } from './declared';
import { createHighbarRecordDecoder, type HighbarDecodeOptions } from './decode';
import { type HighbarEncodeOptions, HighbarEncoder } from './encode';
import { HIGHBAR } from './wire';

export { checkHighbarEvents } from './check';
export { DeclaredTools, declaredTools, matchContext, sameReading } from './declared';
export type { HighbarDecodeOptions } from './decode';
export type { HighbarEncodeOptions } from './encode';
export { joinPy, pyDumps, pyFloat, pyNumber, pyString } from './pyjson';
export {
  HIGHBAR_KEY_ORDER,
  HIGHBAR_TIME_FIELDS,
  HIGHBAR_V0_FIELDS,
  HIGHBAR_VERSION,
  HighbarHelloRecord,
  type HighbarHints,
  type HighbarRecord,
  type HighbarRecordType,
  HighbarToolRecord,
  HighbarToolsRecord,
  HighbarTurnRecord,
  HighbarV0Record,
  isHighbarRecordType,
  validateHighbarRecord,
} from './wire';

/** The highbar trace codec plus declared tools and test correlation. */
export interface HighbarCodec extends Codec<HighbarDecodeOptions, HighbarEncodeOptions> {
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
    lineChunkDecoder(HIGHBAR, 'jsonl', options, sink, createHighbarRecordDecoder(options, sink)),
  createEncoder: (options, sink) => new HighbarEncoder(options, sink),
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
  check: createCheck(codec, checkHighbarEvents),
};
