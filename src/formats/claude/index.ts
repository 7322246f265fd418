import {
  type CheckingCodec,
  createCheckers,
  createCodec,
  slotsChunkDecoder,
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
const codec = createCodec<ClaudeDecodeOptions, ClaudeEncodeOptions>({
  format: CLAUDE_FORMAT,
  createChunkDecoder: (options, sink) =>
    slotsChunkDecoder(
      CLAUDE_FORMAT,
      withLineBound(options, CLAUDE_MAX_LINE_BYTES),
      sink,
      claudeRecordSlots(options, sink),
    ),
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
export const claude: ClaudeCodec = {
  ...codec,
  ...createCheckers(codec, withIncompleteRuns(claudeRules, 'claude', 'its result record')),
};
