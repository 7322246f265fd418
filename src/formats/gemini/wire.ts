import type { Detection } from '../../detect';
import { isJsonObject, type JsonObject } from '../../json';
import { hasSomeKey } from '../../record';
import { aOr } from '../../words';

// Timestamps as `toISOString` writes them: shared by the formats that write ISO 8601 (src/iso.ts).
export { exactIsoMs, formatTimestamp, IsoReader, IsoWriter, parseTimestamp } from '../../iso';

// Every byte rule of Gemini CLI's `--output-format stream-json` (google-gemini/gemini-cli,
// packages/core/src/output/types.ts and the emit sites in packages/cli/src/nonInteractiveCli.ts):
// one `JSON.stringify(event) + "\n"` per event, keys in the order the emit sites build the
// object literal, `timestamp` as `new Date().toISOString()`. See docs/protocols/gemini.md.

/** The record types Gemini CLI writes, in the order a run writes them. */
export const GEMINI_RECORD_TYPES = ['init', 'message', 'tool_use', 'tool_result', 'error', 'result'] as const;

/** A Gemini stream-json record type. */
export type GeminiRecordType = (typeof GEMINI_RECORD_TYPES)[number];

/** True for a record type this codec reads. */
export function isGeminiRecordType(type: unknown): type is GeminiRecordType {
  return typeof type === 'string' && (GEMINI_RECORD_TYPES as readonly string[]).indexOf(type) !== -1;
}

/** Each record's keys in the order Gemini CLI writes them (optional keys included). */
export const GEMINI_KEY_ORDER: Readonly<Record<GeminiRecordType, readonly string[]>> = {
  init: ['type', 'timestamp', 'session_id', 'model'],
  message: ['type', 'timestamp', 'role', 'content', 'delta'],
  tool_use: ['type', 'timestamp', 'tool_name', 'tool_id', 'parameters'],
  tool_result: ['type', 'timestamp', 'tool_id', 'status', 'output', 'error'],
  error: ['type', 'timestamp', 'severity', 'message'],
  result: ['type', 'timestamp', 'status', 'error', 'stats'],
};

/** `result.stats` keys in Gemini CLI's order (`StreamStats`). */
export const GEMINI_STATS_KEYS: readonly string[] = [
  'total_tokens',
  'input_tokens',
  'output_tokens',
  'cached',
  'input',
  'duration_ms',
  'tool_calls',
  'models',
];

/** `result.stats.models[name]` keys in Gemini CLI's order (`ModelStreamStats`). */
export const GEMINI_MODEL_STATS_KEYS: readonly string[] = [
  'total_tokens',
  'input_tokens',
  'output_tokens',
  'cached',
  'input',
];

/**
 * Whether a value of `result.stats.models` is a model's figures: an object with at least one key
 * of {@link GEMINI_MODEL_STATS_KEYS}. Any other value, an object included (`{"a":[1]}`, `{}`),
 * is a key of another kind (a later Gemini CLI's): read as no model, written back as it was.
 */
export function isGeminiModelStats(value: unknown): value is JsonObject {
  return hasSomeKey(value, GEMINI_MODEL_STATS_KEYS);
}

/** `tool_result.error.type` when the tool gave none (`TOOL_EXECUTION_ERROR`). */
export const GEMINI_TOOL_ERROR_TYPE = 'TOOL_EXECUTION_ERROR';

/** `result.error.type` the writer puts when the events name no error type. */
export const GEMINI_RUN_ERROR_TYPE = 'Error';

/**
 * `result.error.message` of a cancelled run (`status: "error"`): Gemini CLI's
 * `new FatalCancellationError('Operation cancelled.')` as `handleCancellationError` writes it,
 * and as `handleError` writes it through `parseAndFormatApiError` (`[API Error: …]`: the agent
 * session's path, which throws the error at an aborted end). The message is the sign read:
 * `error.type` is the error's constructor name (`getErrorType`), which a bundler may rename (a
 * colliding class becomes `FatalCancellationError2`, a minifier shortens it), and the exit code
 * (130) is not in the stream. The first is what the writer puts for a cancelled run.
 */
export const GEMINI_CANCELLED_MESSAGES: readonly string[] = [
  'Operation cancelled.',
  '[API Error: Operation cancelled.]',
];

/** `result.error.type` the writer puts for a cancelled run whose events name no error type. */
export const GEMINI_CANCELLED_ERROR_TYPE = 'FatalCancellationError';

/** `init.model` the writer puts when the events name no model (Gemini always writes one). */
export const GEMINI_UNKNOWN_MODEL = 'unknown';

/**
 * Default `maxLineBytes` for Gemini streams: 16 MiB. A `tool_result.output` carries a tool's
 * whole display text (a file read, a shell's output) on one line.
 */
export const GEMINI_MAX_LINE_BYTES: number = 16 * 1024 * 1024;

/**
 * A short stream of Gemini CLI's common lines, which the codec's held decoder reads once and
 * whose events and parsed records it keeps, so their hidden classes (an event's, its provenance's
 * and hints', the records the decoder makes per line, and the objects `JSON.parse` made) outlive
 * a full GC between streams (createReader's `heldInput` and `holdsRecords`; docs/performance.md,
 * "Round thirty-three" and "Round thirty-five"). A sum of plain strings, so a bundle that does not
 * use it drops it.
 */
export const GEMINI_HELD_INPUT =
  '{"type":"init","timestamp":"2026-03-19T10:14:28.213Z","session_id":"s","model":"auto"}\n' +
  '{"type":"message","timestamp":"2026-03-19T10:14:28.215Z","role":"user","content":"a"}\n' +
  '{"type":"message","timestamp":"2026-03-19T10:14:28.611Z","role":"assistant","content":"a","delta":true}\n' +
  '{"type":"message","timestamp":"2026-03-19T10:14:28.611Z","role":"assistant","content":"\\"a\\"","delta":true}\n' +
  '{"type":"tool_use","timestamp":"2026-03-19T10:14:30.798Z","tool_name":"t","tool_id":"c","parameters":{"p":"a"}}\n' +
  '{"type":"tool_result","timestamp":"2026-03-19T10:14:31.021Z","tool_id":"c","status":"success","output":"a"}\n' +
  '{"type":"tool_use","timestamp":"2026-03-19T10:14:31.022Z","tool_name":"t","tool_id":"d","parameters":{"p":"a"}}\n' +
  '{"type":"tool_result","timestamp":"2026-03-19T10:14:31.023Z","tool_id":"d","status":"error","output":"a","error":{"type":"e","message":"a"}}\n' +
  '{"type":"result","timestamp":"2026-03-19T10:14:32.299Z","status":"success","stats":{"total_tokens":3,"input_tokens":2,"output_tokens":1,"cached":1,"input":1,"duration_ms":1,"tool_calls":2,"models":{"m":{"total_tokens":3,"input_tokens":2,"output_tokens":1,"cached":1,"input":1}}}}\n';

/** The notice `kind` of a stdout line that is not JSON (banners and warnings before `init`). */
export const GEMINI_STDOUT_NOTICE = 'stdout';

/** The notice `kind` of an `error` record of severity `warning` (loop detected, …). */
export const GEMINI_WARNING_NOTICE = 'warning';

/**
 * What the Gemini decoder leaves in `provenance.hints` for the writer: facts the model has no
 * place for that are needed to give a line back byte for byte. Every field is optional.
 */
export interface GeminiHints {
  /**
   * The line as written. The writer puts it back while the events of the line still say what
   * they said (`rawIfSame`), so key order, spacing and number spelling survive.
   */
  raw?: string;
  /**
   * A line that is not JSON (a banner before `init`, a broken record), as written: the writer
   * puts it back as it was while the event still holds it.
   */
  text?: string;
  /**
   * `timestamp` as written when `ts` printed as ISO 8601 would not give it back (a placeholder,
   * another precision), or `null` when the record had none.
   */
  timestamp?: string | null;
  /** An assistant `message` written without `delta` (one whole message, `quiet` mode). */
  whole?: true;
  /**
   * `tool_result.error.type` when it is not `TOOL_EXECUTION_ERROR` (the model keeps the error's
   * `message` as `tool.end.error`, text); on a cancelled run's `result`, `error.type` when it is
   * not `FatalCancellationError` (its message is `run.end.error`).
   */
  errorType?: string;
  /**
   * `tool_result.error` or `result.error` as written when it has keys beside `type` and `message`
   * (a later Gemini CLI's): the writer writes it with the event's type and message put in, so
   * those keys come back.
   */
  error?: JsonObject;
  /** `error.severity` as written when it is neither `warning` nor `error`. */
  severity?: string;
  /** `result.stats` as written: the writer patches the model's figures into it. */
  stats?: JsonObject;
  /**
   * The `content` of an assistant delta read by the decoder's shortcut (a line spelled exactly as
   * Gemini CLI writes it), kept for the writer's kept-line check.
   */
  content?: string;
  /**
   * A `tool_result` record as parsed, kept for the writer's kept-line check: set only when the
   * record says nothing the writer would not write back from its event (its own keys, an
   * `output`, an `error` of `type` and `message` only, a `timestamp` in `toISOString`'s form).
   * No object of it is the event's.
   */
  record?: JsonObject;
}

/** `tool_result.error` and `result.error`: `{ type, message }`. */
export function isGeminiError(value: unknown): value is { type: string; message: string } {
  return isJsonObject(value) && typeof value.type === 'string' && typeof value.message === 'string';
}

/**
 * Why a record of a known type cannot be read as that type (a required field missing or of the
 * wrong type), or `undefined` when it can.
 */
export function geminiRecordProblem(type: GeminiRecordType, r: JsonObject): string | undefined {
  switch (type) {
    case 'init':
      if (typeof r.session_id !== 'string') return 'session_id is not a string';
      if (typeof r.model !== 'string') return 'model is not a string';
      return undefined;
    case 'message':
      if (r.role !== 'user' && r.role !== 'assistant') return 'role is neither "user" nor "assistant"';
      if (typeof r.content !== 'string') return 'content is not a string';
      if (r.delta !== undefined && typeof r.delta !== 'boolean') return 'delta is not a boolean';
      return undefined;
    case 'tool_use':
      if (typeof r.tool_name !== 'string') return 'tool_name is not a string';
      if (typeof r.tool_id !== 'string') return 'tool_id is not a string';
      if (!isJsonObject(r.parameters)) return 'parameters is not an object';
      return undefined;
    case 'tool_result':
      if (typeof r.tool_id !== 'string') return 'tool_id is not a string';
      if (r.status !== 'success' && r.status !== 'error') return 'status is neither "success" nor "error"';
      if (r.output !== undefined && typeof r.output !== 'string') return 'output is not a string';
      if (r.error !== undefined && !isGeminiError(r.error)) return 'error is not {type, message}';
      return undefined;
    case 'error':
      if (typeof r.severity !== 'string') return 'severity is not a string';
      if (typeof r.message !== 'string') return 'message is not a string';
      return undefined;
    case 'result':
      if (r.status !== 'success' && r.status !== 'error') return 'status is neither "success" nor "error"';
      if (r.error !== undefined && !isGeminiError(r.error)) return 'error is not {type, message}';
      if (r.stats !== undefined && !isJsonObject(r.stats)) return 'stats is not an object';
      return undefined;
  }
}

// A JSON line of a Gemini record: `{"type":"<known>","timestamp":…` is how every one begins.
const RECORD_START = /^\{"type":"(init|message|tool_use|tool_result|error|result)","timestamp":/;

/**
 * The sniffing rule {@link detectFormat} calls: Gemini's `{"type":…,"timestamp":…}` records,
 * looked for in the first lines of `text` past any lines that are not JSON (Gemini prints
 * banners before `init`). `init` with `session_id` and `model` is certain; another Gemini record
 * type whose fields fit is likely. `undefined` when the first JSON line is no Gemini record.
 */
export function sniffGemini(text: string): Detection | undefined {
  let start = 0;
  for (let n = 0; n < 64 && start < text.length; n++) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (!line.startsWith('{')) continue;
    const m = RECORD_START.exec(line);
    if (m === null) return undefined;
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      // cut by the detection window: the start is Gemini's
      return { format: 'gemini', confidence: 'likely', reason: `${aOr(m[1]!)} record` };
    }
    if (!isJsonObject(r) || typeof r.timestamp !== 'string') return undefined;
    const type = m[1] as GeminiRecordType;
    if (geminiRecordProblem(type, r) !== undefined) return undefined;
    const banner = n > 0 ? ' after lines that are not JSON' : '';
    return type === 'init'
      ? { format: 'gemini', confidence: 'certain', reason: `init with session_id and model${banner}` }
      : { format: 'gemini', confidence: 'likely', reason: `${aOr(type)} record${banner}` };
  }
  return undefined;
}
