// Timestamps exactly as `Date.prototype.toISOString` writes them (`YYYY-MM-DDTHH:MM:SS.mmmZ`),
// read and written without `Date.parse`/`toISOString` in the common case: the formats that carry
// ISO 8601 timestamps (Gemini CLI, Copilot) share these. test/gemini/iso.test.ts holds the writer
// equal to `toISOString`.

import { MINUTE, MINUTE_MS } from './iso-slots';

// ISO 8601 as Date.prototype.toISOString writes it: YYYY-MM-DDTHH:MM:SS.mmmZ.
const ISO_LENGTH = 24;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * Milliseconds since the epoch of a timestamp exactly as `toISOString` writes it, or `NaN` when
 * `s` is not in that form (then {@link parseTimestamp} tries harder). Reads the digits itself:
 * `Date.parse` costs more than the rest of a line's decoding.
 */
export function exactIsoMs(s: string): number {
  if (
    s.length !== ISO_LENGTH ||
    s.charCodeAt(4) !== 45 ||
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 84 ||
    s.charCodeAt(13) !== 58 ||
    s.charCodeAt(16) !== 58 ||
    s.charCodeAt(19) !== 46 ||
    s.charCodeAt(23) !== 90
  ) {
    return Number.NaN;
  }
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  const ms = digits(s, 20, 3);
  // Date.UTC reads years 0–99 as 1900–1999: those take the slow path.
  if (year < 100 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59 || ms < 0)
    return Number.NaN;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 1 : 0;
  if (hour < 0 || minute < 0 || second < 0 || day > DAYS[month - 1]! + leap) return Number.NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

/**
 * What {@link readIso} remembers between timestamps: `YYYY-MM-DDTHH:MM:` of the last one read,
 * and that minute's first ms. An array ({@link newIsoClock}), as {@link IsoWriteClock}: its hidden
 * class is the realm's and outlives every GC; a literal made once per decoder has no allocation
 * site yet, its hidden class (and its `minuteMs` field, a small integer made a double by the first
 * timestamp) dies with the last decoder at a full GC and takes the optimised decoders that read it
 * along (docs/performance.md, "Copilot codec, round thirteen").
 */
export type IsoClock = [
  /**
   * `YYYY-MM-DDTHH:MM:` of the last timestamp read or written (`toISOString`'s text without its
   * `ss.mmmZ`); `''` before the first.
   */
  minute: string,
  /** That minute's first ms. */
  minuteMs: number,
];

// The slots of an IsoClock, read and written alike: MINUTE and MINUTE_MS (iso-slots.ts).

/** A fresh {@link IsoClock}: no minute seen yet. */
export function newIsoClock(): IsoClock {
  return ['', 0];
}

/**
 * ms since the epoch of a timestamp exactly as `toISOString` writes it, or `NaN` when `s` is not
 * in that form. The timestamps of one stream mostly share their minute: then only seconds and
 * milliseconds are read.
 */
export function readIso(clock: IsoClock, s: string): number {
  if (
    s.length === ISO_LENGTH &&
    // indexOf, not startsWith: V8 runs startsWith several times slower (docs/performance.md,
    // "Gemini CLI stream-json"); a miss searches on through the 24 characters only.
    s.indexOf(clock[MINUTE]) === 0 &&
    s.charCodeAt(19) === 46 &&
    s.charCodeAt(23) === 90 &&
    clock[MINUTE] !== ''
  ) {
    const second = digits(s, 17, 2);
    const ms = digits(s, 20, 3);
    if (second >= 0 && second <= 59 && ms >= 0) return clock[MINUTE_MS] + second * 1000 + ms;
  }
  const ms = exactIsoMs(s);
  if (!Number.isNaN(ms)) {
    clock[MINUTE] = s.slice(0, 17);
    clock[MINUTE_MS] = ms - digits(s, 17, 2) * 1000 - digits(s, 20, 3);
  }
  return ms;
}

/**
 * Reads timestamps exactly as `toISOString` writes them, remembering the minute of the last one
 * ({@link readIso} over one {@link IsoClock}).
 */
export class IsoReader {
  private readonly clock = newIsoClock();

  /** ms since the epoch, or `NaN` when `s` is not in `toISOString`'s form. */
  read(s: string): number {
    return readIso(this.clock, s);
  }
}

/**
 * A `timestamp` as ms since the epoch (`NaN` when it is no time at all), and whether
 * {@link formatTimestamp} of that number gives the same text back.
 */
export function parseTimestamp(s: string): { ms: number; exact: boolean } {
  const fast = exactIsoMs(s);
  if (!Number.isNaN(fast)) return { ms: fast, exact: true };
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) return { ms, exact: false };
  return { ms, exact: formatTimestamp(ms) === s };
}

/** ms since the epoch as `new Date(ms).toISOString()` writes it; `''` for no valid time. */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

// The largest time value a Date holds (ms either side of the epoch).
const MAX_TIME = 8.64e15;

/**
 * Writes timestamps as {@link formatTimestamp} does, remembering the minute of the last one: the
 * timestamps of one stream mostly share it, and then only seconds and milliseconds are written
 * (`toISOString` costs more than the rest of a line's writing). test/gemini/iso.test.ts holds the
 * two equal; docs/performance.md ("Gemini").
 */
export class IsoWriter {
  private readonly c: IsoWriteClock = newIsoWriteClock();

  /** `formatTimestamp(ms)`. */
  write(ms: number): string {
    return writeIsoAt(this.c, ms);
  }
}

/**
 * The state of {@link IsoWriter} ({@link newIsoWriteClock}), for writers whose per-event code
 * should read no class instance: an array (its hidden class is the realm's and outlives every
 * GC; a literal's, made once per writer, does not: docs/performance.md, "Copilot writer, round
 * seven"). The reader's {@link IsoClock}: the same minute and its first ms, written as read.
 */
export type IsoWriteClock = IsoClock;

/** A fresh {@link IsoWriteClock}. */
export function newIsoWriteClock(): IsoWriteClock {
  return ['', Number.NaN];
}

/** `formatTimestamp(ms)`, remembering the minute in `c` ({@link IsoWriter.write}). */
export function writeIsoAt(c: IsoWriteClock, ms: number): string {
  const off = ms - c[MINUTE_MS];
  if (off >= 0 && off < 60000 && Number.isInteger(ms) && ms <= MAX_TIME) {
    const second = Math.floor(off / 1000);
    const milli = off - second * 1000;
    return `${c[MINUTE]}${second < 10 ? '0' : ''}${second}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
  }
  const iso = formatTimestamp(ms);
  if (iso !== '' && Number.isInteger(ms)) {
    c[MINUTE_MS] = ms - (((ms % 60000) + 60000) % 60000);
    c[MINUTE] = iso.slice(0, -7);
  }
  return iso;
}
