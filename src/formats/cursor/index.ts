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
import { cursorRules } from './check';
import { type CursorDecodeOptions, createCursorRecordDecoder } from './decode';
import { type CursorEncodeOptions, CursorEncoder } from './encode';
import { CURSOR_HELD_INPUT, CURSOR_MAX_LINE_BYTES } from './wire';

export { checkCursorEvents } from './check';
export type { CursorDecodeOptions } from './decode';
export type { CursorEncodeOptions } from './encode';
export {
  CURSOR_MAX_LINE_BYTES,
  CURSOR_RECORD_TYPES,
  CURSOR_TOOL_KINDS,
  type CursorHints,
  type CursorRecordType,
  isCursorRecordType,
} from './wire';

/** The Cursor agent codec plus its stream checker. */
export interface CursorCodec extends CheckingCodec<CursorDecodeOptions, CursorEncodeOptions> {
  /**
   * Validates a whole `cursor-agent --output-format stream-json` stream: every decoder
   * diagnostic plus what a consumer relies on ({@link checkCursorEvents}). Empty means conforming.
   */
  check(input: string | Uint8Array, options?: CursorDecodeOptions): Diagnostic[];
}

/**
 * The reading half of {@link cursor}: `parse`, `decode`, `createDecoder`, the decoder streams and
 * the checkers, the same as `cursor`'s. Pick it to read Cursor without writing it (a viewer): a
 * bundle that imports only `cursorReader` holds no byte of the Cursor writer.
 */
export const cursorReader: CheckingReader<CursorDecodeOptions> = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ createLineReader<CursorDecodeOptions>({
    format: 'cursor',
    maxLineBytes: CURSOR_MAX_LINE_BYTES,
    createRecordDecoder: createCursorRecordDecoder,
    heldInput: CURSOR_HELD_INPUT,
  }),
  cursorRules,
);

/**
 * The writing half of {@link cursor}: `stringify`, `encode`, `createEncoder` and `encoderStream`,
 * the same as `cursor`'s. Pick it to write Cursor without reading it (an emitter): a bundle that
 * imports only `cursorWriter` holds no byte of the Cursor decoder or checker.
 */
export const cursorWriter: CodecWriter<CursorEncodeOptions> =
  /* @__PURE__ */ createWriter<CursorEncodeOptions>({
    format: 'cursor',
    createEncoder: (options, sink) => new CursorEncoder(options, sink),
  });

/**
 * The Cursor agent CLI's `cursor-agent -p --output-format stream-json` stream: init, the prompt
 * echo, thinking, assistant text (snapshots, or token deltas with `--stream-partial-output`), tool
 * calls keyed by their kind (`shellToolCall`, `editToolCall`, …) and the `result` with its usage.
 *
 * @example
 * ```ts
 * import { cursor } from 'agentwire/cursor';
 * const { events, diagnostics } = cursor.parse(text);
 * cursor.stringify(events); // === text
 * ```
 */
export const cursor: CursorCodec = /* @__PURE__ */ joinCodec(cursorReader, cursorWriter);
