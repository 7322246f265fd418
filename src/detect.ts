import type { Format } from './diagnostics';
import { sniffAgui } from './formats/ag-ui/wire';
import { sniffAiSdk } from './formats/ai-sdk/wire';
import { sniffAmp } from './formats/amp/wire';
import { sniffClaude } from './formats/claude/wire';
import { sniffCodex } from './formats/codex/wire';
import { sniffCopilot } from './formats/copilot/wire';
import { sniffCursor } from './formats/cursor/wire';
import { sniffGemini } from './formats/gemini/wire';
import { sniffHep } from './formats/hep/wire';
import { sniffHighbar } from './formats/highbar/wire';
import { sniffNativeharness } from './formats/nativeharness/wire';
import { sniffOpencode } from './formats/opencode/wire';
import { stripBom } from './framing/bom';
import { asChunk } from './framing/utf8';
import { isJsonObject, type JsonObject, parseJsonObject } from './json';

/** What {@link detectFormat} found. */
export interface Detection {
  format: Format;
  /** `certain`: a marker only that format has; `likely`: fits the format's shape; `guess`: a weak hint. */
  confidence: 'certain' | 'likely' | 'guess';
  /**
   * Which framing the input uses, when its first line tells: nativeharness (`sse`, `json` or
   * `jsonl`), AG-UI and the AI SDK (`sse` for a `data:` line).
   */
  framing?: 'sse' | 'json' | 'jsonl';
  /** Why, in a few words. */
  reason: string;
}

/** How many bytes of the input detection looks at. */
export const DETECT_BYTES = 64 * 1024;

// A line ends at LF, CRLF or a lone CR (SSE allows all three; a JSON line cannot hold a raw CR,
// so a CR ends one too).
const LINE_END = /\r\n?|\n/g;

// The lines of `text`, trimmed, blank ones included.
function* linesOf(text: string): Generator<string> {
  let start = 0;
  while (start < text.length) {
    LINE_END.lastIndex = start;
    const m = LINE_END.exec(text);
    yield text.slice(start, m === null ? text.length : m.index).trim();
    start = m === null ? text.length : m.index + m[0].length;
  }
}

// The first line with content.
function firstLine(text: string): string {
  for (const line of linesOf(text)) if (line !== '') return line;
  return '';
}

/** A format's sniffing rule: what the first non-blank line (and its JSON object, if any) says. */
type Sniffer = (line: string, record: JsonObject | undefined) => Detection | undefined;

// Rules that read only a JSON object.
const onRecord =
  (rule: (record: JsonObject) => Detection | undefined): Sniffer =>
  (_line, record) =>
    record === undefined ? undefined : rule(record);

// Each format's sniffing rule lives in its wire.ts; a new format adds its rule here. The CLI
// agents' own markers come first: each rule says nothing unless its format's fields are there.
const SNIFFERS: readonly Sniffer[] = [
  onRecord(sniffOpencode),
  onRecord(sniffCursor),
  onRecord(sniffAmp),
  (line, record) => {
    if (record !== undefined) {
      return sniffClaude(record)
        ? {
            format: 'claude',
            confidence: 'likely',
            reason: `a Claude ${String(record.type)} record with a session_id`,
          }
        : undefined;
    }
    // A first line cut by the detection window: its start.
    return line.startsWith('{"type":"system","subtype":"init"')
      ? { format: 'claude', confidence: 'likely', reason: 'a system/init record' }
      : undefined;
  },
  sniffUiProtocol,
  onRecord(sniffCopilot),
  sniffHep,
  sniffNativeharness,
  onRecord((r) => {
    const codex = sniffCodex(r);
    return codex === undefined ? undefined : { format: 'codex', ...codex };
  }),
  sniffHighbar,
];

/**
 * The UI protocols (AG-UI, the AI SDK UI message stream): a JSON line, or an SSE `data: {json}`
 * line whose record is theirs (then as certain as nativeharness's SSE, and ahead of it).
 */
function sniffUiProtocol(line: string, record: JsonObject | undefined): Detection | undefined {
  if (record !== undefined) return sniffAgui(record) ?? sniffAiSdk(record);
  if (!line.startsWith('data:')) return undefined;
  const data = line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
  if (!data.startsWith('{')) return undefined;
  const value = parseJsonObject(data);
  if (value === undefined) return undefined;
  const found = sniffAgui(value) ?? sniffAiSdk(value);
  return found === undefined ? undefined : { ...found, confidence: 'certain', framing: 'sse' };
}

const RANK: Readonly<Record<Detection['confidence'], number>> = { certain: 0, likely: 1, guess: 2 };

/**
 * Says which format `input` is in, from its first line (or first SSE block). Looks at the first
 * {@link DETECT_BYTES} only. `undefined` when nothing fits. The most confident rule wins; among
 * equally confident ones, the first listed. When the first line is not JSON and no rule reads its
 * text (a banner, a log's `#` comments), the first JSON object line among the first 64 lines
 * decides, at most `likely`.
 */
export function detectFormat(
  input: string | Uint8Array | ArrayBuffer | ArrayBufferView,
): Detection | undefined {
  let text: string;
  const chunk = asChunk(input);
  if (typeof chunk === 'string') text = chunk.slice(0, DETECT_BYTES);
  else text = new TextDecoder('utf-8', { fatal: false }).decode(chunk.subarray(0, DETECT_BYTES));
  text = stripBom(text);
  const line = firstLine(text);
  if (line === '') return undefined;
  let record: JsonObject | undefined;
  let parsed = true;
  try {
    const value: unknown = JSON.parse(line);
    if (isJsonObject(value)) record = value;
  } catch {
    // A first line cut by the 64 KiB window, or not JSON: the rules look at its text.
    parsed = false;
  }
  const best = bestRule(line, record);
  if (best !== undefined) return best;
  // Gemini CLI prints banners before its first record: its rule is the last resort, over the
  // whole window when the first line is not JSON.
  if (!parsed) return sniffGemini(text) ?? afterBanner(text);
  return record === undefined ? undefined : sniffGemini(line);
}

// What the most confident rule says of a line (and its object); the first in SNIFFERS among
// equally confident ones.
function bestRule(line: string, record: JsonObject | undefined): Detection | undefined {
  let best: Detection | undefined;
  for (const sniff of SNIFFERS) {
    const found = sniff(line, record);
    if (found !== undefined && (best === undefined || RANK[found.confidence] < RANK[best.confidence]))
      best = found;
  }
  return best;
}

/**
 * Any other format after lines that are not JSON (a wrapper's warning, a log's `#` comments,
 * `npx` noise before the agent's first record): the rules read the first line of the window
 * that is a JSON object, among its first {@link BANNER_LINES}. At most `likely`, since the first
 * line was not the format's; the decoder reports the lines before it.
 */
function afterBanner(text: string): Detection | undefined {
  let n = 0;
  for (const line of linesOf(text)) {
    if (n++ === BANNER_LINES) break;
    if (!line.startsWith('{')) continue;
    // A JSON-looking line that is not a JSON object (or cut by the window): nothing to go by.
    const value = parseJsonObject(line);
    if (value === undefined) return undefined;
    const best = bestRule(line, value);
    if (best === undefined) return undefined;
    return {
      ...best,
      confidence: best.confidence === 'certain' ? 'likely' : best.confidence,
      reason: `${best.reason} after lines that are not JSON`,
    };
  }
  return undefined;
}

// How many lines {@link afterBanner} looks through (Gemini's rule looks as far).
const BANNER_LINES = 64;
