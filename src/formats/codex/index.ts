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
import { codexRules } from './check';
import { type CodexDecodeOptions, createCodexRecordDecoder } from './decode';
import { type CodexEncodeOptions, createCodexEncoder } from './encode';
import { CODEX_MAX_LINE_BYTES } from './wire';

export { checkCodexEvents } from './check';
export type { CodexDecodeOptions } from './decode';
export type { CodexEncodeOptions } from './encode';
export {
  CODEX_EVENT_TYPES,
  CODEX_ITEM_TYPES,
  CODEX_MAX_LINE_BYTES,
  type CodexEventType,
  type CodexHints,
  type CodexItemRecord,
  type CodexItemType,
  type CodexUsageTotal,
} from './wire';

/** The Codex `exec --json` codec plus its stream checker. */
export interface CodexCodec extends CheckingCodec<CodexDecodeOptions, CodexEncodeOptions> {
  /**
   * Validates a whole Codex stream: every decoder diagnostic plus what `codex exec` guarantees
   * (every turn ends in `turn.completed` or `turn.failed`; items that start, complete). Empty
   * means conforming.
   */
  check(input: string | Uint8Array, options?: CodexDecodeOptions): Diagnostic[];
}

/**
 * The reading half of {@link codex}: `parse`, `decode`, `createDecoder`, the decoder streams and
 * the checkers, the same as `codex`'s. Pick it to read Codex without writing it (a viewer): a
 * bundle that imports only `codexReader` holds no byte of the Codex writer.
 */
export const codexReader: CheckingReader<CodexDecodeOptions> = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ createLineReader<CodexDecodeOptions>({
    format: 'codex',
    maxLineBytes: CODEX_MAX_LINE_BYTES,
    createRecordDecoder: createCodexRecordDecoder,
  }),
  codexRules,
);

/**
 * The writing half of {@link codex}: `stringify`, `encode`, `createEncoder` and `encoderStream`,
 * the same as `codex`'s. Pick it to write Codex without reading it (an emitter): a bundle that
 * imports only `codexWriter` holds no byte of the Codex decoder or checker.
 */
export const codexWriter: CodecWriter<CodexEncodeOptions> = /* @__PURE__ */ createWriter<CodexEncodeOptions>({
  format: 'codex',
  createEncoder: (options, sink) => createCodexEncoder(options, sink),
});

/**
 * OpenAI Codex `codex exec --json`: one `ThreadEvent` per line (`thread.started`,
 * `turn.started`, `item.*` snapshots, `turn.completed` with the thread's running usage total,
 * `turn.failed`, `error`).
 *
 * @example
 * ```ts
 * import { codex } from 'agentwire/codex';
 * const { events } = codex.parse(text);
 * const bytes = codex.stringify(events); // === text for what codex exec writes
 * ```
 */
export const codex: CodexCodec = /* @__PURE__ */ joinCodec(codexReader, codexWriter);
