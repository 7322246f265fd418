import type { Encoder } from '../src/codec';
import { isAgentwireError } from '../src/diagnostics';
import type { AgentEvent } from '../src/model';

/** What an encoder wrote for a stream, and the messages of the events it refused. */
export interface RefusedWrites {
  text: string;
  refusals: string[];
}

/**
 * `events` through `encoder` one by one, its end included, as a conversion writes them: an event
 * the writer refuses (an AgentwireError) is noted and the next one written. Anything else thrown
 * (a TypeError out of JSON.stringify) fails the caller's test: a refusal is an AgentwireError.
 */
export function writeRefusing(encoder: Encoder, events: readonly AgentEvent[]): RefusedWrites {
  let text = '';
  const refusals: string[] = [];
  for (const event of events) {
    try {
      text += encoder.write(event);
    } catch (error) {
      if (!isAgentwireError(error)) throw error;
      refusals.push(error.diagnostic.message);
    }
  }
  return { text: text + encoder.end(), refusals };
}
