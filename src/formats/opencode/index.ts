import {
  type CheckingCodec,
  type CheckingReader,
  type CodecWriter,
  createReader,
  createWriter,
  joinCodec,
  lineChunkDecoder,
  withCheckers,
  withLineBound,
} from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { newLineEnds, withLineEnds } from '../../framing/line-ends';
import { opencodeRules } from './check';
import { createOpencodeRecordDecoder, type OpencodeDecodeOptions } from './decode';
import { type OpencodeEncodeOptions, OpencodeEncoder } from './encode';
import { OPENCODE_HELD_INPUT, OPENCODE_MAX_LINE_BYTES } from './wire';

export { checkOpencodeEvents } from './check';
export type { OpencodeDecodeOptions } from './decode';
export type { OpencodeEncodeOptions } from './encode';
export {
  isOpencodeRecordType,
  OPENCODE_MAX_LINE_BYTES,
  OPENCODE_RECORD_TYPES,
  type OpencodeHints,
  type OpencodeRecordType,
  type OpencodeTokens,
} from './wire';

/** The OpenCode codec plus its stream checker. */
export interface OpencodeCodec extends CheckingCodec<OpencodeDecodeOptions, OpencodeEncodeOptions> {
  /**
   * Validates a whole `opencode run --format json` stream: every decoder diagnostic plus what a
   * consumer relies on ({@link checkOpencodeEvents}). Empty means conforming.
   */
  check(input: string | Uint8Array, options?: OpencodeDecodeOptions): Diagnostic[];
}

/**
 * The reading half of {@link opencode}: `parse`, `decode`, `createDecoder`, the decoder streams and
 * the checkers, the same as `opencode`'s. Pick it to read OpenCode without writing it (a viewer): a
 * bundle that imports only `opencodeReader` holds no byte of the OpenCode writer.
 */
export const opencodeReader: CheckingReader<OpencodeDecodeOptions> = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ createReader<OpencodeDecodeOptions>({
    format: 'opencode',
    createChunkDecoder: (options, sink) => {
      const ends = newLineEnds();
      const lines = withLineBound(options, OPENCODE_MAX_LINE_BYTES);
      const records = createOpencodeRecordDecoder(options, sink, ends);
      return withLineEnds(lineChunkDecoder('opencode', 'jsonl', lines, sink, records), ends);
    },
    heldInput: OPENCODE_HELD_INPUT,
  }),
  opencodeRules,
);

/**
 * The writing half of {@link opencode}: `stringify`, `encode`, `createEncoder` and `encoderStream`,
 * the same as `opencode`'s. Pick it to write OpenCode without reading it (an emitter): a bundle
 * that imports only `opencodeWriter` holds no byte of the OpenCode decoder or checker.
 */
export const opencodeWriter: CodecWriter<OpencodeEncodeOptions> =
  /* @__PURE__ */ createWriter<OpencodeEncodeOptions>({
    format: 'opencode',
    createEncoder: (options, sink) => new OpencodeEncoder(options, sink),
  });

/**
 * OpenCode's `opencode run --format json` stream: steps (rounds) with their text, reasoning,
 * finished tool calls and per-step usage and cost, errors, and `done`. CRLF lines (Windows) are
 * read and written back as they came.
 *
 * @example
 * ```ts
 * import { opencode } from 'agentwire/opencode';
 * const { events, diagnostics } = opencode.parse(text);
 * opencode.stringify(events); // === text
 * ```
 */
export const opencode: OpencodeCodec = /* @__PURE__ */ joinCodec(opencodeReader, opencodeWriter);
