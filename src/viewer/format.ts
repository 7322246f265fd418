import type { Usage } from '../model';
import { neutralizeControls } from '../view';

// Pure formatting for the browser viewer: text in, text out (the DOM code puts it in with
// textContent only). Shared with the tests, which run it in Node.

/** Model text made safe to show: control characters (ANSI escapes, bidi overrides) made visible. */
export const safe = neutralizeControls;

/** A count with thousands separated by thin spaces: `12 345`. */
export function count(n: number): string {
  const s = String(Math.round(n));
  return s.replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
}

/** Dollars, three significant digits below a dollar: `$0.0123`, `$0.003`, `$1.25`. */
export function dollars(n: number): string {
  if (n === 0) return '$0';
  return n >= 1 ? `$${n.toFixed(2)}` : `$${Number(n.toPrecision(3))}`;
}

/** Whether a usage figure says anything (nativeharness writes zeros where a source had none). */
export function hasUsage(u: Usage | undefined): u is Usage {
  return u !== undefined && !!(u.input || u.output || u.costUsd);
}

/** A usage figure in one line: `1 234 in (1 000 cached) · 56 out · $0.0123`. */
export function usageLine(u: Usage | undefined): string {
  if (!hasUsage(u)) return '';
  const parts: string[] = [];
  if (u.input !== undefined) {
    parts.push(`${count(u.input)} in${u.cacheRead ? ` (${count(u.cacheRead)} cached)` : ''}`);
  }
  if (u.output !== undefined) {
    parts.push(`${count(u.output)} out${u.reasoning ? ` (${count(u.reasoning)} reasoning)` : ''}`);
  }
  if (u.costUsd) parts.push(dollars(u.costUsd));
  return parts.join(' · ');
}

/** A duration: `850 ms`, `4.2 s`, `3 m 05 s`. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, '0')} s`;
}

/** A value shown as text: strings as they are, anything else as indented JSON. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The first `lines` lines of a text (and at most `chars` characters), and whether it was cut. */
export function head(text: string, lines: number, chars: number): { text: string; cut: boolean } {
  let end = Math.min(text.length, chars);
  let seen = 0;
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10 && ++seen === lines) {
      end = i;
      break;
    }
  }
  return { text: text.slice(0, end), cut: end < text.length };
}

/** Adds a usage figure into running totals (absent fields count as zero). */
export function addUsage(total: Required<Pick<Usage, 'input' | 'output' | 'costUsd'>>, u: Usage): void {
  total.input += u.input ?? 0;
  total.output += u.output ?? 0;
  total.costUsd += u.costUsd ?? 0;
}
