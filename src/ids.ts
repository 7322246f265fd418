// Ids a writer makes when the events it writes have none.

/** A random UUID (`crypto.randomUUID()`), or a time-and-random id where there is no Web Crypto. */
export function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID !== undefined) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}
