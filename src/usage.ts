// Usage totals. Costs are decimal figures (dollars with a few decimal places) that binary doubles
// hold only approximately: 0.0042 + 0.0047 + 0.0039 is 0.012799999999999999 in float arithmetic.
// A run's total must read as the person adding the figures expects, so sums here are exact in
// decimal and rounded to the nearest double once.

import type { Format } from './diagnostics';
import { nonFiniteSeen } from './guards';
import { assertFiniteNumber, wrongType } from './json';

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
  return addScaled(a, b) ?? addDecimal(a, b);
}

// Powers of ten a double holds exactly (10^22 is the last): literals, as `10 ** n` need not be.
const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
  1e20, 1e21, 1e22,
];

// The decimal places of `n`'s shortest spelling, found without spelling it: the fewest places
// `k` at which the nearest `k`-place decimal `d / 10^k` is `n` again. Below 10^15 digits a decimal
// is the only one of its length that rounds to its double (a double holds 15 significant decimal
// digits), so `d / 10^k` is the value of the shortest spelling. -1 when the digits do not fit.
function placesOf(n: number): number {
  for (let k = 0; k < POW10.length; k++) {
    const d = Math.round(n * POW10[k]!);
    if (!(d < 1e15 && d > -1e15)) return -1;
    if (d / POW10[k]! === n) return k;
  }
  return -1;
}

// The fast path of `addExact`, for figures of at most 15 significant digits (every cost a
// source writes): both scaled to integers of the larger scale, added exactly, and divided once by
// the power of ten, a division IEEE rounds correctly, so the result is the same double as the
// general path's. `undefined` when the digits do not fit; test/issue-15/usage-total.test.ts
// holds the two paths equal by a property.
function addScaled(a: number, b: number): number | undefined {
  const pa = placesOf(a);
  const pb = placesOf(b);
  if (pa < 0 || pb < 0) return undefined;
  const scale = Math.max(pa, pb);
  const x = Math.round(a * POW10[pa]!) * POW10[scale - pa]!;
  const y = Math.round(b * POW10[pb]!) * POW10[scale - pb]!;
  const total = x + y;
  if (!Number.isSafeInteger(x) || !Number.isSafeInteger(y) || !Number.isSafeInteger(total)) return undefined;
  return total / POW10[scale]!;
}

/**
 * The general path of {@link addExact}: the same sum with arbitrary-precision digits. Exported
 * for the property that holds the fast path equal to it; not part of the public API.
 */
export function addDecimal(a: number, b: number): number {
  const sum = a + b;
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
 * A figure absent from `add` leaves `total` as it is; one absent from `total` starts at 0; a sum
 * past a double's range leaves it as it was (counted: `nonFiniteReads` in src/guards.ts).
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
    if (value === undefined) continue;
    const sum = addExact(t[key] ?? 0, value);
    // Two finite figures near a double's limit (1e308 + 1e308) sum to Infinity, which no figure
    // of the model is: the total stays the last one that is a number, and the count of such
    // numbers moves, so a decoder summing the line's figures warns for it (guards.ts). (A figure
    // that is none already is passed on, for the writer's check to refuse.)
    if (Number.isFinite(sum) || !Number.isFinite(value)) t[key] = sum;
    else nonFiniteSeen();
  }
  return total;
}

/**
 * Refuses a usage whose figures JSON cannot hold as numbers (each present one must be a finite
 * number; its `model`, present, a string): an `AgentwireError` (`unencodable`) naming
 * `<field>.<figure>`, as every writer refuses what it cannot write. A writer that sums or spells figures itself calls it first: `NaN` spelled
 * in a template is no JSON, and through `JSON.stringify` it would silently become `null`.
 */
export function assertUsageFigures(
  usage: Partial<Record<UsageFigures, unknown>>,
  field: string,
  format: Format,
): void {
  // (No object at all, null from an event built by hand: refused, not a TypeError.)
  if (typeof usage !== 'object' || usage === null) throw wrongType(usage, field, 'an object', format);
  for (const key of FIGURES) {
    const value = usage[key];
    // The test before the call: the field's name is built only for a figure that fails it.
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value)))
      assertFiniteNumber(value, `${field}.${key}`, format);
  }
  // The model's name rides beside the figures (a writer's metadata, a record's `model`), written
  // as JSON: a BigInt there was refused only when that JSON was made, after the writer changed.
  const model = (usage as { model?: unknown }).model;
  if (model !== undefined && typeof model !== 'string')
    throw wrongType(model, `${field}.model`, 'a string', format);
}

/**
 * Refuses a usage with a figure of no number at all (a BigInt, a string, null: what an event
 * built by hand may carry), or a usage of no object, naming `<field>.<figure>`: what a writer that sums figures asks
 * first, as its sum would throw a `TypeError` (a BigInt) or make text of them. A number it
 * cannot count (NaN, a fraction) is its own rule's.
 */
export function assertUsageNumbers(usage: unknown, field: string, format: Format): void {
  // (No object at all, null: its figures would be read off nothing, a TypeError.)
  if (typeof usage !== 'object' || usage === null) throw wrongType(usage, field, 'an object', format);
  for (const key of FIGURES) {
    const value = (usage as Partial<Record<UsageFigures, unknown>>)[key];
    if (value !== undefined && typeof value !== 'number')
      assertFiniteNumber(value, `${field}.${key}`, format);
  }
}

/**
 * Refuses a usage whose per-model breakdown a writer cannot write: `byModel` present and no
 * object (an array, `null`, a string), or a model's figures refused by `each`: no object, or
 * (the default, {@link assertUsageFigures}) ones JSON cannot hold as numbers, naming
 * `<field>.byModel.<model>.<figure>`; {@link assertUsageNumbers} for a writer whose own check of
 * the written record refuses a number JSON cannot hold in its words. What a writer that spells or
 * sums each model's figures (Gemini's `stats.models`, Claude's `modelUsage`) asks first: a BigInt
 * there threw a `TypeError` in the sum, a `null` model was read off nothing.
 */
export function assertByModelFigures(
  usage: { byModel?: unknown },
  field: string,
  format: Format,
  each: (figures: never, field: string, format: Format) => void = assertUsageFigures,
): void {
  const byModel = usage.byModel;
  if (byModel === undefined) return;
  if (typeof byModel !== 'object' || byModel === null || Array.isArray(byModel))
    throw wrongType(byModel, `${field}.byModel`, 'an object', format);
  for (const name of Object.keys(byModel))
    each((byModel as Record<string, never>)[name]!, `${field}.byModel.${name}`, format);
}
