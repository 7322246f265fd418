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
