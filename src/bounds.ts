import type { LineReport } from './diagnostics';

// Text bounds writers apply (HEP's, and any format that adopts them). Counted in UTF-16 code
// units (JavaScript `.length`), as the HEP reference counts them.

const MARKER = /…\(\+(\d+) chars\)$/;

/**
 * Caps `text` at `cap` code units, appending `…(+N chars)` (N = code units cut). Idempotent:
 * text that is already exactly a capped prefix plus its marker is returned unchanged, so a
 * stream decoded from a conforming writer is written back byte for byte.
 */
export function boundText(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const m = MARKER.exec(text);
  if (m !== null && m.index === cap) return text;
  return `${text.slice(0, cap)}…(+${text.length - cap} chars)`;
}

/** Caps a one-line summary at `cap` code units plus `...` (idempotent like {@link boundText}). */
export function boundSummary(text: string, cap: number): string {
  if (text.length <= cap) return text;
  if (text.length === cap + 3 && text.endsWith('...')) return text;
  return `${text.slice(0, cap)}...`;
}

/** True when `text` ends in a `…(+N chars)` marker at `cap`: it was cut by a writer. */
export function isBounded(text: string, cap: number): boolean {
  const m = MARKER.exec(text);
  return m !== null && m.index === cap;
}

/**
 * Most characters of a round's text a decoder holds to repeat it as `round.end.message` (formats
 * whose round end does not carry the text itself: it is joined from the round's deltas). 4 Mi:
 * four times the longest message a model writes today, and it keeps a runaway round's memory
 * bounded (docs/limits.md). Counted in UTF-16 code units.
 */
export const MAX_ROUND_TEXT: number = 4 * 1024 * 1024;

/**
 * `held` with `text` appended, up to {@link MAX_ROUND_TEXT} characters: past it the rest is not
 * held (the `text.delta` events carry it all), and the append that reaches the cap reports one
 * `text_too_long` warning at `line`/`offset`. A hot path may append itself while the sum stays
 * under the cap and call this only past it: the same string either way.
 */
export function appendRoundText(
  held: string,
  text: string,
  report: LineReport,
  line: number,
  offset: number,
): string {
  if (held.length + text.length < MAX_ROUND_TEXT) return held + text;
  if (held.length >= MAX_ROUND_TEXT) return held;
  report(
    'text_too_long',
    'warning',
    line,
    offset,
    `the round's text reached ${MAX_ROUND_TEXT} characters: its round.end.message holds the first ${MAX_ROUND_TEXT}, its text.delta events all of it`,
  );
  return held + text.slice(0, MAX_ROUND_TEXT - held.length);
}
