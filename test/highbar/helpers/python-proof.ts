import { type AgentEvent, highbar } from '../../../src/all';
import { pyDumps, pyFloat, pyKey } from '../../../src/formats/highbar/pyjson';
import { HIGHBAR_TIME_FIELDS, HIGHBAR_V0_TIME_FIELDS } from '../../../src/formats/highbar/wire';

// The eager proof the highbar decoder used to run on every line, kept here as the oracle of the
// lazy one: a line needs no keeping when it is exactly Python's `json.dumps` text of its record,
// the record's time fields (by its kind) printed as Python floats, as Python writes
// `time.time()`, and integral values as Python ints wherever the line spelled them so.

// The time fields of the line's record as the decoder read it: none for a line it kept as an
// unknown event (written back as data), else those of a v0 line or of a v1 record.
function timeFields(record: Record<string, unknown>, events: readonly AgentEvent[]): readonly string[] {
  if (events.some((e) => e.type === 'unknown')) return [];
  return record.v === undefined || record.v === 0 ? HIGHBAR_V0_TIME_FIELDS : HIGHBAR_TIME_FIELDS;
}

/** `json.dumps(record)` with the top-level keys in `floats` printed as Python floats. */
export function pyDumpsWithFloats(record: Record<string, unknown>, floats: readonly string[]): string {
  const parts: string[] = [];
  for (const key of Object.keys(record)) {
    const item = record[key];
    const text = typeof item === 'number' && floats.includes(key) ? pyFloat(item) : pyDumps(item);
    parts.push(`${pyKey(key)}: ${text}`);
  }
  return `{${parts.join(', ')}}`;
}

/**
 * The eager proof: `line` (decoded into `events`) is exactly Python's `json.dumps` text of its
 * record, each time field a Python float (`time.time()`) or, integral, a Python int.
 */
export function isPythonLine(line: string, events: readonly AgentEvent[]): boolean {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return false;
  }
  try {
    return pythonText(record, events, line);
  } catch {
    return false; // a value JSON cannot hold (1e400 reads as Infinity): no Python text
  }
}

function pythonText(record: unknown, events: readonly AgentEvent[], line: string): boolean {
  if (pyDumps(record) === line) return true;
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return false;
  const r = record as Record<string, unknown>;
  const times = timeFields(r, events).filter((k) => typeof r[k] === 'number');
  // Every choice of float or int for the time fields (at most three: eight texts).
  for (let mask = 0; mask < 1 << times.length; mask++) {
    const floats = times.filter((_, i) => (mask & (1 << i)) !== 0 || !Number.isInteger(r[times[i]!]));
    if (pyDumpsWithFloats(r, floats) === line) return true;
  }
  return false;
}

/** A deep copy of `events` without the kept line (`hints.raw`): what the writer has of them alone. */
export function withoutRaw(events: readonly AgentEvent[]): AgentEvent[] {
  // structuredClone, not a JSON copy: -0 and the infinities of a line must survive.
  const copy = structuredClone(events) as AgentEvent[];
  for (const e of copy) {
    const hints = e.provenance?.hints;
    if (hints !== undefined) {
      delete hints.raw;
      if (Object.keys(hints).length === 0) delete e.provenance!.hints;
    }
  }
  return copy;
}

/**
 * The lazy proof, as the writer makes it: its own text of the line's events (written from the
 * model, without the kept line) is the line. `line` without its line feed.
 */
export function writerGivesLineBack(line: string): boolean {
  const { events } = highbar.parse(`${line}\n`);
  return highbar.stringify(withoutRaw(events)) === `${line}\n`;
}
