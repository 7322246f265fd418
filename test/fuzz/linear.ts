// The harness of linear.test.ts: does a call's cost grow linearly with its input? It times an
// input of size n and of size 8n, in turn, in the same process, and compares: a linear cost gives
// ~8, a quadratic one ~64; the bound is RATIO. No threshold in time, only a ratio of timings.
//
// Why it is built the way it is (each point was a failure, or a near one, on a loaded machine):
// - CPU time, not the wall clock: under the full suite (every file in its own process, two cores)
//   a process waits its turn for whole milliseconds, and a wait inside the large input's run read
//   as a slope (round thirty-six). CPU time counts only the process's own work.
// - User plus system time, not user time alone: the kernel knows their sum exactly but splits it
//   by sampling at its tick (a call of a few milliseconds can read as all system time), and on a
//   virtual machine the cost of a fresh page lands in user time as much as in system time.
// - Fresh memory is the largest noise: a page fault costs microseconds (on the machines this runs
//   on, tens of times the work of filling the page), and whether a call gets fresh pages depends on
//   the allocator and the garbage collector, not on the code under test: a buffer that is recycled
//   costs nothing, one past the recycling size (glibc maps anything over 32 MiB afresh) faults on
//   every page, every call, and so does a heap that outgrows the young generation. A small input
//   that recycles against a large one that faults reads as a slope (round forty-three: 102 against
//   30, from a cost that is linear). Each call's page faults are counted, for the failure message.
// - The small input is sized until its cheapest of several calls takes MIN_MS: the noise of one
//   call is whole milliseconds, and an input of a few hundred kilobytes still fits a cache, the
//   young generation or the allocator's free lists that a large one does not (a step of the
//   constant, not a slope). Sizing by the cheapest call grows n past those steps.
// - The ratio is of medians over rounds that time the small and the large input in turn: a stall,
//   a collection or a burst of faults in one call moves neither median, and a slowdown of the whole
//   machine for a while falls on both sizes alike.
// - When the ratio misses, n is doubled (within MAX_GROWTH) and measured once more, afresh: a step
//   of the constant (a cache, the young generation, the allocator's recycling size) between n and
//   8n has the small input on its cheap side; doubling moves the small input past it too, while a
//   quadratic cost misses at every size. At the bound of growth the second measurement's rounds
//   are pooled with the first's instead.
// - The inputs are built before the clock starts, and each is called once untimed (the first call
//   compiles the code and grows the heap to the input's size). Before the small input is sized,
//   the first one is called for WARM_MS of CPU time: sized on code still running unoptimised, n
//   stayed at a size whose calls later took a tenth of MIN_MS once the code was optimised (round
//   forty-four's re-read: the first case of probe-linear sized at n 250, then timed 1.9 ms calls).
// - A ratio test sees a quadratic term once it is a fair share of the cost at n (with the bound at
//   30, about two fifths): each case's input is one that makes the suspected cost dominate.
// LINEAR_TRACE=1 in the environment prints every case's timings (reportLinearity).

import { expect } from 'vitest';

/** The bound on large / small (a linear cost gives ~8, a quadratic one ~64). */
export const RATIO = 30;
/** The cheapest of CALIBRATION_CALLS calls of the small input must take at least this (ms). */
export const MIN_MS = 20;
/** n never grows past start × MAX_GROWTH (bounds each case's memory). */
export const MAX_GROWTH = 64;
const CALIBRATION_CALLS = 3;
/** CPU time (ms) spent calling the first input before sizing, so the code is optimised first. */
const WARM_MS = 100;
/** At most this many warm-up calls (a call of a few microseconds would otherwise loop long). */
const WARM_CALLS = 10_000;
/** Rounds of (small, large) per attempt. */
const ROUNDS = 3;
/**
 * Measurements before a miss is a failure: the second at twice n while growth allows (only one
 * more: a quadratic cost's large call takes four times as long at each doubling).
 */
const ATTEMPTS = 2;

/** One timed call: its CPU time (ms, user plus system) and the page faults it took. */
export interface Timing {
  /** CPU time, user plus system (ms). */
  cpu: number;
  /** Minor page faults (fresh pages) during the call. */
  faults: number;
}

/** What a measurement found: the size, every timing of each input and the ratio of medians. */
export interface Linearity {
  /** The small input's size (the large one's is 8n). */
  n: number;
  /** Each round's timing of the small input, of the last measurement (pooled at the growth bound). */
  smalls: Timing[];
  /** The same of the large input. */
  larges: Timing[];
  /** median(large) / median(small), CPU time. */
  ratio: number;
  /** The ratios of the earlier attempts that missed, with their n. */
  missed: string[];
}

/** What a self-test may change (the harness's sizing and patience, never its verdict). */
export interface LinearityOptions {
  /** In place of MIN_MS. */
  minMs?: number;
  /** In place of ATTEMPTS. */
  attempts?: number;
}

function time(fn: () => void): Timing {
  const f0 = process.resourceUsage().minorPageFault;
  const t0 = process.cpuUsage();
  fn();
  const t = process.cpuUsage(t0);
  const faults = process.resourceUsage().minorPageFault - f0;
  return { cpu: (t.user + t.system) / 1000, faults };
}

function least(fn: () => void, calls: number): number {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < calls; i++) min = Math.min(min, time(fn).cpu);
  return min;
}

function median(ts: Timing[]): number {
  const s = ts.map((t) => t.cpu).sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The least n from `n` up (doubling, within `max`) whose call's cheapest run takes `minMs`. */
function calibrate(make: (n: number) => () => void, n: number, max: number, minMs: number) {
  let small = make(n);
  small();
  for (let spent = 0, i = 0; spent < WARM_MS && i < WARM_CALLS; i++) spent += time(small).cpu;
  let ts = least(small, CALIBRATION_CALLS);
  while (ts < minMs && n < max) {
    n *= 2;
    small = make(n);
    small();
    ts = least(small, CALIBRATION_CALLS);
  }
  if (ts < minMs) throw new Error(`an input of size ${n} takes ${ts} ms, too little to time`);
  return { n, small };
}

/**
 * Measures how `make(n)`'s call grows from n to 8n. `make` builds the input (untimed) and returns
 * the call to time; n starts at `start` and doubles until the small call is long enough to time.
 * Throws when even start × MAX_GROWTH is too small to time (a case that proves nothing).
 */
export function measureLinearity(
  make: (n: number) => () => void,
  start: number,
  options: LinearityOptions = {},
): Linearity {
  const minMs = options.minMs ?? MIN_MS;
  const attempts = options.attempts ?? ATTEMPTS;
  const max = start * MAX_GROWTH;
  let { n, small } = calibrate(make, start, max, minMs);
  let large = make(8 * n);
  large();
  let smalls: Timing[] = [];
  let larges: Timing[] = [];
  let ratio = Number.POSITIVE_INFINITY;
  const missed: string[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) {
      missed.push(`${ratio.toFixed(1)} at n ${n}`);
      if (n < max) {
        n *= 2;
        // The last inputs are let go before the next are built (memory).
        small = large = () => {};
        small = make(n);
        small();
        large = make(8 * n);
        large();
        smalls = [];
        larges = [];
      }
    }
    for (let r = 0; r < ROUNDS; r++) {
      smalls.push(time(small));
      larges.push(time(large));
    }
    ratio = median(larges) / median(smalls);
    if (ratio < RATIO) break;
  }
  return { n, smalls, larges, ratio, missed };
}

/** A readable account of a measurement, for an assertion's message. */
export function describeLinearity(m: Linearity): string {
  const list = (ts: Timing[]) => ts.map((t) => `${t.cpu.toFixed(1)}/${t.faults}`).join(' ');
  const missed = m.missed.length > 0 ? ` (missed first: ${m.missed.join(', ')})` : '';
  return `n ${m.n} (ms CPU/page faults): small [${list(m.smalls)}], 8n [${list(m.larges)}]; ratio ${m.ratio.toFixed(1)}${missed}`;
}

/**
 * {@link describeLinearity}'s account of `m`, for an assertion's message; printed with the running
 * test's name as well when LINEAR_TRACE is set in the environment.
 */
export function reportLinearity(m: Linearity): string {
  const account = describeLinearity(m);
  if (process.env.LINEAR_TRACE) console.log(`LINEAR ${expect.getState().currentTestName} ${account}`);
  return account;
}

/**
 * Asserts that `make(n)`'s call grows linearly from n to 8n ({@link measureLinearity}'s ratio under
 * {@link RATIO}), every timing in the message when it does not.
 */
export function expectLinear(make: (n: number) => () => void, start: number): void {
  const m = measureLinearity(make, start);
  expect(m.ratio, reportLinearity(m)).toBeLessThan(RATIO);
}
