/**
 * A set that remembers its last `limit` entries exactly and forgets older ones, first in first
 * out: for a rule about "every earlier id" (a duplicate id, a parent that names an earlier
 * event), which would otherwise keep one entry per record of the stream. `forgot` says whether
 * anything was forgotten, so a rule can stay silent where it can no longer tell (an id that is not
 * here may be one that was forgotten) instead of reporting what is not wrong.
 */
export class RecentSet<T> {
  private readonly set = new Set<T>();
  // The entries in the order they came, a ring: the slot `next` holds the oldest once full. (A
  // Set's own first entry is no cheap oldest: deleted slots stay at its front until it rehashes.)
  private readonly order: T[] = [];
  private next = 0;
  /** True once an entry was dropped to stay within the limit. */
  forgot = false;

  constructor(private readonly limit = RECENT_LIMIT) {}

  has(value: T): boolean {
    return this.set.has(value);
  }

  add(value: T): void {
    if (this.set.has(value)) return;
    this.set.add(value);
    if (this.order.length < this.limit) {
      this.order.push(value);
      return;
    }
    // Full: the oldest goes (it may have been deleted already; then nothing is forgotten). An
    // entry deleted and added again goes with its first slot: early, but `forgot` says so.
    if (this.set.delete(this.order[this.next]!)) this.forgot = true;
    this.order[this.next] = value;
    this.next = (this.next + 1) % this.limit;
  }

  delete(value: T): boolean {
    return this.set.delete(value);
  }

  /** Forgets everything, and that anything was forgotten: a new scope starts. */
  clear(): void {
    this.set.clear();
    this.order.length = 0;
    this.next = 0;
    this.forgot = false;
  }
}

/**
 * How many ids the checks remember (docs/limits.md, "check"): a duplicate id or a parent id is
 * judged against the last 65,536 records' ids; a few MiB at most, whatever the stream's length.
 */
export const RECENT_LIMIT = 65_536;
