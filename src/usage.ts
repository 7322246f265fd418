// Usage totals. Costs are decimal figures (dollars with a few decimal places) that binary doubles
// hold only approximately: 0.0042 + 0.0047 + 0.0039 is 0.012799999999999999 in float arithmetic.
// A run's total must read as the person adding the figures expects, so sums here are exact in
// decimal and rounded to the nearest double once.

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

// `n` as an exact decimal `digits / 10^scale`, from its shortest round-trip spelling (what the
// input said, for a number read from JSON text). `undefined` for a non-finite number.
function decimalOf(n: number): { digits: bigint; scale: number } | undefined {
  const m = DECIMAL.exec(String(n));
  if (m === null) return undefined;
  const fraction = m[3] ?? '';
  let digits = BigInt(`${m[2]}${fraction}`);
  let scale = fraction.length - Number(m[4] ?? 0);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits: m[1] === '-' ? -digits : digits, scale };
}

/**
 * `a + b` summed exactly in decimal, each number taken as its shortest spelling (`0.0042`), then
 * rounded once to the nearest double: `addExact(addExact(0.0042, 0.0047), 0.0039)` is `0.0128`,
 * not `0.012799999999999999`. Integers within 2^53 add as usual; a non-finite operand gives
 * what `a + b` gives. The one place usage figures are totalled: decoders that total a run and
 * the timeline view use it, and so should every new codec.
 */
export function addExact(a: number, b: number): number {
  const sum = a + b;
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b) && Number.isSafeInteger(sum)) return sum;
  const x = decimalOf(a);
  const y = decimalOf(b);
  if (x === undefined || y === undefined) return sum;
  const scale = Math.max(x.scale, y.scale);
  const total = x.digits * 10n ** BigInt(scale - x.scale) + y.digits * 10n ** BigInt(scale - y.scale);
  if (scale === 0) return Number(total);
  const negative = total < 0n;
  const text = (negative ? -total : total).toString().padStart(scale + 1, '0');
  return Number(`${negative ? '-' : ''}${text.slice(0, -scale)}.${text.slice(-scale)}`);
}

/** The figures of a usage record that add up across rounds. */
export type UsageFigures = 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'reasoning' | 'costUsd';

const FIGURES: readonly UsageFigures[] = [
  'input',
  'output',
  'cacheRead',
  'cacheWrite',
  'reasoning',
  'costUsd',
];

/**
 * Adds the figures of `add` into `total` with {@link addExact}, in place, and returns `total`.
 * A figure absent from `add` leaves `total` as it is; one absent from `total` starts at 0.
 * Figures only: `scope`, `final`, `key` and `byModel` are the caller's to decide (see the Usage
 * rules in docs/model.md: never sum non-final or same-key figures).
 */
export function addUsage<T extends Partial<Record<UsageFigures, number>>>(
  total: T,
  add: Partial<Record<UsageFigures, number>>,
): T {
  const t = total as Partial<Record<UsageFigures, number>>;
  for (const key of FIGURES) {
    const value = add[key];
    if (value !== undefined) t[key] = addExact(t[key] ?? 0, value);
  }
  return total;
}
