import { type CheckingCodec, createCheckers, createLineCodec } from '../../codec';
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

const codec = createLineCodec<CursorDecodeOptions, CursorEncodeOptions>({
  format: 'cursor',
  maxLineBytes: CURSOR_MAX_LINE_BYTES,
  createRecordDecoder: createCursorRecordDecoder,
  createEncoder: (options, sink) => new CursorEncoder(options, sink),
  heldInput: CURSOR_HELD_INPUT,
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
export const cursor: CursorCodec = {
  ...codec,
  ...createCheckers(codec, cursorRules),
};
