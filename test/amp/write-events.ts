import { type AgentEvent, amp } from '../../src/all';
import type { EncodeOptions } from '../../src/codec';
import { type Written, writeStream } from '../writer-values';

export type { Written } from '../writer-values';

/**
 * Writes `events` with a fresh Amp writer: the text of every event followed by `|`, then the
 * end, or `threw …` where a write threw. The writer-join and writer-template properties share it.
 */
export function writeAmp(
  events: AgentEvent[],
  options: EncodeOptions & { session?: string; idSource?: () => string },
): Written {
  return writeStream((onDiagnostic) => amp.createEncoder({ ...options, onDiagnostic }), events);
}
