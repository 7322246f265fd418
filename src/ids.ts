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

// `YYYY-MM-DDTHH:MM:SS.mmmZ`, what `toISOString` writes: read by arithmetic, not by `Date.parse`.
function digits(text: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return Number.NaN;
    v = v * 10 + c;
  }
  return v;
}

/**
 * ms since the epoch of an ISO 8601 timestamp, `undefined` when it is not one. The common
 * spelling (`toISOString`'s, 24 characters) is read directly; any other goes to `Date.parse`.
 */
export function isoToMs(text: string): number | undefined {
  if (
    text.length === 24 &&
    text.charCodeAt(4) === 45 &&
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 84 &&
    text.charCodeAt(13) === 58 &&
    text.charCodeAt(16) === 58 &&
    text.charCodeAt(19) === 46 &&
    text.charCodeAt(23) === 90
  ) {
    const month = digits(text, 5, 2);
    const day = digits(text, 8, 2);
    const hour = digits(text, 11, 2);
    const minute = digits(text, 14, 2);
    const second = digits(text, 17, 2);
    // In range for every month (days past the 28th depend on the month: the slow path decides).
    if (month >= 1 && month <= 12 && day >= 1 && day <= 28 && hour <= 23 && minute <= 59 && second <= 59) {
      const ms = Date.UTC(digits(text, 0, 4), month - 1, day, hour, minute, second, digits(text, 20, 3));
      if (Number.isFinite(ms)) return ms;
    }
  }
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}
