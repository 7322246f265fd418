// Ids a writer makes when the events it writes have none.

/** A random UUID (`crypto.randomUUID()`), or a time-and-random id where there is no Web Crypto. */
export function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID !== undefined) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * A writer's run of random UUIDs ({@link newUuidRun}, {@link nextUuid}): the UUID the run started
 * from, cut before its last two hex digits, and how many ids it has handed out. An array, as the
 * writers' state is (its hidden class outlives a full GC).
 */
export type UuidRun = [prefix: string, next: number];

/** A run that draws its first UUID at its first id. */
export function newUuidRun(): UuidRun {
  return ['', RUN_LENGTH];
}

const RUN_LENGTH = 256;
// The last two hex digits of a run's ids, `00` to `ff` (built at the first run).
const LAST_DIGITS: string[] = [];

/**
 * The next id of a writer that makes one per record: a valid random (version 4) UUID, unique. A
 * `crypto.randomUUID()` costs as much as a short record's JSON (docs/performance.md, "Copilot
 * writer, round fifteen"), so one is drawn per 256 ids and the run's ids are it with its last two
 * hex digits counted from `00` to `ff`: the version and variant digits stay, the ids of a run
 * differ from each other by those digits, and from every other run's by the 114 random bits
 * before them, as two random UUIDs differ. Without Web Crypto, {@link randomId} per id.
 */
export function nextUuid(run: UuidRun): string {
  if (run[1] === RUN_LENGTH) {
    const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
    if (c?.randomUUID === undefined) return randomId();
    if (LAST_DIGITS.length === 0)
      for (let i = 0; i < RUN_LENGTH; i++) LAST_DIGITS.push(i.toString(16).padStart(2, '0'));
    run[0] = c.randomUUID().slice(0, 34);
    run[1] = 0;
  }
  return run[0] + LAST_DIGITS[run[1]++]!;
}
