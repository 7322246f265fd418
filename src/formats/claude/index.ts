import {
  type CheckingCodec,
  type CheckingReader,
  type CodecWriter,
  createReader,
  createWriter,
  joinCodec,
  slotsChunkDecoder,
  withCheckers,
  withIncompleteRuns,
  withLineBound,
} from '../../codec';
import type { Diagnostic } from '../../diagnostics';
import { claudeRules } from './check';
import { type ClaudeDecodeOptions, claudeRecordSlots } from './decode';
import { type ClaudeEncodeOptions, ClaudeEncoder } from './encode';
import { CLAUDE_FORMAT, CLAUDE_MAX_LINE_BYTES } from './wire';

export { checkClaudeEvents } from './check';
export type { ClaudeDecodeOptions } from './decode';
export type { ClaudeEncodeOptions } from './encode';
export { CLAUDE_MAX_LINE_BYTES, type ClaudeHints } from './wire';

/** The Claude Code stream-json codec plus its stream checker. */
export interface ClaudeCodec extends CheckingCodec<ClaudeDecodeOptions, ClaudeEncodeOptions> {
  /**
   * Validates a whole stream: every decoder diagnostic plus the stream's rules
   * ({@link checkClaudeEvents}). Empty means conforming.
   */
  check(input: string | Uint8Array, options?: ClaudeDecodeOptions): Diagnostic[];
}

// The record decoder as slots (as highbar's): the splitter calls the same module function for
// every stream (src/codec.ts, `RecordSlots`).
/**
 * The reading half of {@link claude}: `parse`, `decode`, `createDecoder`, the decoder streams and
 * the checkers, the same as `claude`'s. Pick it to read Claude without writing it (a viewer): a
 * bundle that imports only `claudeReader` holds no byte of the Claude writer.
 */
export const claudeReader: CheckingReader<ClaudeDecodeOptions> = /* @__PURE__ */ withCheckers(
  /* @__PURE__ */ createReader<ClaudeDecodeOptions>({
    format: CLAUDE_FORMAT,
    createChunkDecoder: (options, sink) =>
      slotsChunkDecoder(
        CLAUDE_FORMAT,
        withLineBound(options, CLAUDE_MAX_LINE_BYTES),
        sink,
        claudeRecordSlots(options, sink),
      ),
  }),
  /* @__PURE__ */ withIncompleteRuns(claudeRules, 'claude', 'its result record'),
);

/**
 * The writing half of {@link claude}: `stringify`, `encode`, `createEncoder` and `encoderStream`,
 * the same as `claude`'s. Pick it to write Claude without reading it (an emitter): a bundle that
 * imports only `claudeWriter` holds no byte of the Claude decoder or checker.
 */
export const claudeWriter: CodecWriter<ClaudeEncodeOptions> =
  /* @__PURE__ */ createWriter<ClaudeEncodeOptions>({
    format: CLAUDE_FORMAT,
    createEncoder: (options, sink) => new ClaudeEncoder(options, sink),
  });

/**
 * Claude Code `claude -p --output-format stream-json --verbose` — the Claude Agent SDK's
 * messages, one JSON object per line.
 *
 * @example
 * ```ts
 * import { claude } from 'agentwire/claude';
 * for await (const e of claude.decode(child.stdout)) if (e.type === 'run.end') console.log(e.status, e.usage);
 * claude.stringify(claude.parse(text).events); // === text
 * ```
 */
export const claude: ClaudeCodec = /* @__PURE__ */ joinCodec(claudeReader, claudeWriter);
