// Ids and timestamps a writer makes when the events it writes have none.

/** A random UUID (`crypto.randomUUID()`), or a time-and-random id where there is no Web Crypto. */
export function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID !== undefined) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * ISO 8601 text of a time in ms since the epoch (`Date.prototype.toISOString`), remembering the
 * last one: events of a burst share their ms, and formatting a date costs more than a lookup.
 */
export class IsoClock {
  private lastMs = Number.NaN;
  private lastText = '';

  /** The ISO text of `ms`. */
  text(ms: number): string {
    if (ms !== this.lastMs) {
      this.lastText = new Date(ms).toISOString();
      this.lastMs = ms;
    }
    return this.lastText;
  }
}
