import type { Format } from './diagnostics';
import { ampSniff } from './formats/amp/wire';
import { sniffCodex } from './formats/codex/wire';
import { copilotSniff } from './formats/copilot/wire';
import { sniffCursor } from './formats/cursor/wire';
import { sniffGemini } from './formats/gemini/wire';
import { isHepFrameType } from './formats/hep/schema';
import { isHighbarRecordType } from './formats/highbar/schema';
import { sniffOpencode } from './formats/opencode/wire';

/** What {@link detectFormat} found. */
export interface Detection {
  format: Format;
  /** `certain`: a marker only that format has; `likely`: fits the format's shape; `guess`: a weak hint. */
  confidence: 'certain' | 'likely' | 'guess';
  /** For nativeharness: which framing the input uses. */
  framing?: 'sse' | 'json' | 'jsonl';
  /** Why, in a few words. */
  reason: string;
}

/** How many bytes of the input detection looks at. */
export const DETECT_BYTES = 64 * 1024;

function firstLine(text: string): string {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).trim();
    if (line !== '') return line;
    start = end + 1;
  }
  return '';
}

/**
 * Says which format `input` is in, from its first line (or first SSE block). Looks at the first
 * {@link DETECT_BYTES} only. `undefined` when nothing fits.
 */
export function detectFormat(input: string | Uint8Array): Detection | undefined {
  let text: string;
  if (typeof input === 'string') text = input.slice(0, DETECT_BYTES);
  else text = new TextDecoder('utf-8', { fatal: false }).decode(input.subarray(0, DETECT_BYTES));
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const line = firstLine(text);
  if (line === '') return undefined;
  if (/^(?:id|event|data|retry)(?::|$)|^:/.test(line)) {
    return { format: 'nativeharness', confidence: 'certain', framing: 'sse', reason: 'server-sent events' };
  }
  if (line.startsWith('[')) {
    return {
      format: 'nativeharness',
      confidence: 'likely',
      framing: 'json',
      reason: 'a JSON array of events',
    };
  }
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    // A first line cut by the 64 KiB window, or not JSON: look at its start.
    if (line.startsWith('{"type":"hep_header"'))
      return { format: 'hep', confidence: 'certain', reason: 'hep_header' };
    // Gemini CLI prints banners before its first record; its records begin alike either way.
    return sniffGemini(text);
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const r = record as Record<string, unknown>;
  // The CLI agents' own markers first: each rule says nothing unless its format's fields are there.
  const amp = ampSniff(r);
  if (amp !== undefined) return { format: 'amp', ...amp };
  const agent = sniffOpencode(r) ?? sniffCursor(r);
  if (agent !== undefined) return agent;
  if (r.type === 'hep_header') return { format: 'hep', confidence: 'certain', reason: 'hep_header first' };
  const copilot = copilotSniff(r);
  if (copilot !== undefined) return { format: 'copilot', ...copilot };
  if (typeof r.seq === 'number' && typeof r.type === 'string' && ('session_id' in r || 'payload' in r)) {
    return { format: 'nativeharness', confidence: 'certain', framing: 'jsonl', reason: 'an event envelope' };
  }
  if (typeof r.type === 'string' && isHepFrameType(r.type) && 'turn_id' in r) {
    return { format: 'hep', confidence: 'likely', reason: `a ${r.type} frame` };
  }
  if (isHighbarRecordType(r.type) && 'v' in r) {
    return { format: 'highbar', confidence: 'certain', reason: `a v${String(r.v)} ${r.type} record` };
  }
  const codex = sniffCodex(r);
  if (codex !== undefined) return { format: 'codex', ...codex };
  if (typeof r.fn === 'string') return { format: 'highbar', confidence: 'likely', reason: 'a v0 tool call' };
  if ('v' in r && 'ts' in r) return { format: 'highbar', confidence: 'guess', reason: 'v and ts fields' };
  return sniffGemini(line);
}
