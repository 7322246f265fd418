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
//   the allocator, not on the code under test: a buffer the allocator recycles costs nothing, one
//   past its recycling size (glibc maps anything over 32 MiB afresh) faults on every page, every
//   call. A small input that recycles against a large one that faults read as a slope (round
//   forty-three: 102 against 30, from a cost that is linear). So each call's page faults are counted
//   and a fault's cost is timed beside the calls (faultMs); the verdict is the lesser of the plain
//   ratio and the ratio with the faults' cost taken out. A quadratic cost is work in the code, and
//   stays in both.
// - The small input is sized until its cheapest of several calls takes MIN_MS: the noise of one
//   call is whole milliseconds, and an input of a few hundred kilobytes still fits a cache, the
//   young generation or the allocator's free lists that a large one does not (a step of the
//   constant, not a slope). Sizing by the cheapest call grows n past those steps.
// - The ratio is of medians over rounds that time the small and the large input in turn: a stall,
//   a collection or a burst of faults in one call moves neither median, and a slowdown of the whole
//   machine for a while falls on both sizes alike. When the ratio misses, more rounds are pooled
//   with the first (a median over more calls, not a fresh draw that can be unlucky again); a
//   quadratic cost moves every call, so its pooled median stays near 64.
// - The inputs are built before the clock starts, and each is called once untimed (the first call
//   compiles the code and grows the heap to the input's size).
// - A ratio test sees a quadratic term once it is a fair share of the cost at n (with the bound at
//   30, about two fifths): each case's input is one that makes the suspected cost dominate.
// LINEAR_TRACE=1 in the environment prints every case's timings (linear.test.ts).

/** The bound on large / small (a linear cost gives ~8, a quadratic one ~64). */
export const RATIO = 30;
/** The cheapest of CALIBRATION_CALLS calls of the small input must take at least this (ms). */
export const MIN_MS = 20;
/** n never grows past start × MAX_GROWTH (bounds each case's memory). */
export const MAX_GROWTH = 64;
const CALIBRATION_CALLS = 3;
/** Rounds of (small, large) per attempt; attempts pool their rounds. */
const ROUNDS = 3;
const ATTEMPTS = 3;
/** A fresh buffer larger than a C allocator recycles (glibc maps anything over 32 MiB afresh). */
const PROBE_BYTES = 40 * 1024 * 1024;

/** One timed call: its CPU time (ms, user plus system) and the page faults it took. */
export interface Timing {
  cpu: number;
  faults: number;
}

/** What a measurement found: the sizes, every timing of each and the ratios of their medians. */
export interface Linearity {
  n: number;
  smalls: Timing[];
  larges: Timing[];
  /** CPU ms one page fault of fresh memory cost, timed beside the calls. */
  faultMs: number;
  /** median(large) / median(small) of CPU time. */
  cpuRatio: number;
  /** The same of CPU time less faults × faultMs. */
  workRatio: number;
  /** The verdict: the lesser of the two. */
  ratio: number;
}

/** What a self-test may change (the harness's sizing and patience, never its verdict). */
export interface LinearityOptions {
  minMs?: number;
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

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * The CPU ms of one page fault here: buffers too large to be recycled, mapped and filled. An
 * allocator holding enough free memory can still hand the first one out without a fault, so up to
 * four are taken (all held) until one faults on most of its pages.
 */
function faultMs(): number {
  const held: Uint8Array[] = [];
  for (let i = 0; i < 4; i++) {
    const t = time(() => {
      const b = new Uint8Array(PROBE_BYTES);
      b.fill(1);
      held.push(b);
    });
    if (t.faults > PROBE_BYTES / 4096 / 2) return t.cpu / t.faults;
  }
  return 0;
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
  let n = start;
  let small = make(n);
  small();
  let ts = least(small, CALIBRATION_CALLS);
  while (ts < minMs && n < start * MAX_GROWTH) {
    n *= 2;
    small = make(n);
    small();
    ts = least(small, CALIBRATION_CALLS);
  }
  if (ts < minMs) throw new Error(`an input of size ${n} takes ${ts} ms, too little to time`);
  const large = make(8 * n);
  large();
  const fault = faultMs();
  const smalls: Timing[] = [];
  const larges: Timing[] = [];
  const ratios = (f: (t: Timing) => number) =>
    median(larges.map(f)) / Math.max(median(smalls.map(f)), Number.MIN_VALUE);
  let cpuRatio = Number.POSITIVE_INFINITY;
  let workRatio = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < attempts && Math.min(cpuRatio, workRatio) >= RATIO; attempt++) {
    for (let r = 0; r < ROUNDS; r++) {
      smalls.push(time(small));
      larges.push(time(large));
    }
    cpuRatio = ratios((t) => t.cpu);
    workRatio = ratios((t) => Math.max(t.cpu - t.faults * fault, 0));
  }
  return { n, smalls, larges, faultMs: fault, cpuRatio, workRatio, ratio: Math.min(cpuRatio, workRatio) };
}

/** A readable account of a measurement, for an assertion's message. */
export function describeLinearity(m: Linearity): string {
  const list = (ts: Timing[]) => ts.map((t) => `${t.cpu.toFixed(1)}/${t.faults}`).join(' ');
  return (
    `n ${m.n} (ms CPU/page faults): small [${list(m.smalls)}], 8n [${list(m.larges)}]; ` +
    `${(m.faultMs * 1000).toFixed(2)} µs a fault; ratio ${m.cpuRatio.toFixed(1)}, less faults ${m.workRatio.toFixed(1)}`
  );
}
