import type { EncodeOptions } from '../../src/codec';
import type { Diagnostic } from '../../src/diagnostics';
import { type AgentEvent, amp } from '../../src/index';

/** What the Amp writer wrote for a stream: the text after every event (`|`-separated), and its diagnostics. */
export interface Written {
  text: string;
  diagnostics: Diagnostic[];
}

/**
 * Writes `events` with a fresh Amp writer: the text of every event followed by `|`, then the
 * end, or `threw …` where a write threw. The writer-join and writer-template properties share it.
 */
export function writeAmp(
  events: AgentEvent[],
  options: EncodeOptions & { session?: string; idSource?: () => string },
): Written {
  const diagnostics: Diagnostic[] = [];
  const e = amp.createEncoder({ ...options, onDiagnostic: (d) => diagnostics.push(d) });
  let text = '';
  try {
    for (const ev of events) text += `${e.write(ev)}|`;
    text += e.end();
  } catch (error) {
    text += `threw ${String(error)}`;
  }
  return { text, diagnostics };
}
