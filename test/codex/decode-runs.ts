import type { AgentEvent } from '../../src/all';
import { lineChunkDecoder } from '../../src/codec';
import type { Diagnostic } from '../../src/diagnostics';
import { CodexRecordDecoder } from '../../src/formats/codex/decode';

// The Codex decoder run with its line shortcut on or off, for the properties that hold the
// shortcut (test/codex/fast-path.test.ts) and the whole events (test/codex/whole-events.test.ts)
// equal to the general path.

/** What one run gave. */
export interface Decoded {
  events: AgentEvent[];
  diagnostics: Diagnostic[];
}

/** `lines` given to the record decoder one by one (line i + 1 at offset i × 1000). */
export function decodeLines(lines: string[], shortcut: boolean, maxDepth?: number): Decoded {
  const diagnostics: Diagnostic[] = [];
  const options = maxDepth === undefined ? {} : { maxDepth };
  const d = new CodexRecordDecoder(options, { report: (x) => diagnostics.push(x) }, shortcut);
  const events: AgentEvent[] = [];
  lines.forEach((l, i) => {
    d.line(l, i + 1, i * 1000, events);
  });
  d.end(events);
  return { events, diagnostics };
}

/** `chunks` through the shared line splitter and the record decoder. */
export function decodeChunks(chunks: Uint8Array[], shortcut: boolean): Decoded {
  const diagnostics: Diagnostic[] = [];
  const sink = { report: (x: Diagnostic) => diagnostics.push(x) };
  const d = lineChunkDecoder('codex', 'jsonl', {}, sink, new CodexRecordDecoder({}, sink, shortcut));
  const events: AgentEvent[] = [];
  for (const c of chunks) d.push(c, events);
  d.end(events);
  return { events, diagnostics };
}
