import { type FSWatcher, watch } from 'node:fs';
import { open, stat } from 'node:fs/promises';

const FINGERPRINT = 64;

function joinTail(tail: Uint8Array, chunk: Uint8Array): Uint8Array {
  const all = new Uint8Array(tail.length + chunk.length);
  all.set(tail, 0);
  all.set(chunk, tail.length);
  return all.length > FINGERPRINT ? all.slice(-FINGERPRINT) : all;
}

/** Options of {@link followFile}. */
export interface FollowOptions {
  /** Stops following (the iterator then ends). */
  signal?: AbortSignal;
  /** Polling interval in ms, the fallback when `fs.watch` is silent or unavailable. Default 250. */
  pollMs?: number;
  /** Byte position to start at. Default 0 (the whole file, then what is appended). */
  start?: number;
  /** Called when the file shrank or was replaced: reading restarts at byte 0. */
  onRestart?: (reason: 'truncated' | 'replaced') => void;
  /** Largest read at once, in bytes. Default 1 MiB. */
  chunkBytes?: number;
}

/**
 * Follows a file another process appends to, like `tail -f`: yields its bytes from `start`, then
 * every append as it lands. Wakes on `fs.watch` with a polling fallback. A file that does not
 * exist yet is waited for; one that becomes smaller than the position reached, or is replaced by
 * a new file (another inode), is read again from byte 0 (`onRestart` says so). Ends when
 * `signal` aborts.
 */
export async function* followFile(path: string, options: FollowOptions = {}): AsyncGenerator<Uint8Array> {
  const pollMs = options.pollMs ?? 250;
  const chunkBytes = options.chunkBytes ?? 1024 * 1024;
  const signal = options.signal;
  let position = options.start ?? 0;
  let inode: number | undefined;
  let watcher: FSWatcher | undefined;
  let wake: (() => void) | undefined;
  const nudge = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  signal?.addEventListener('abort', nudge, { once: true });
  const sleep = () =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, pollMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const buffer = new Uint8Array(chunkBytes);
  let tail: Uint8Array = new Uint8Array(0);
  try {
    while (!signal?.aborted) {
      let info: Awaited<ReturnType<typeof stat>>;
      try {
        info = await stat(path);
      } catch {
        await sleep(); // not there yet (or between delete and re-create)
        continue;
      }
      if (watcher === undefined) {
        try {
          watcher = watch(path, { persistent: false }, nudge);
          watcher.on('error', () => {
            watcher?.close();
          });
        } catch {
          // polling alone
        }
      }
      if (inode !== undefined && info.ino !== inode) {
        position = 0;
        tail = new Uint8Array(0);
        options.onRestart?.('replaced');
        watcher?.close();
        watcher = undefined;
      } else if (info.size < position) {
        position = 0;
        tail = new Uint8Array(0);
        options.onRestart?.('truncated');
      }
      inode = info.ino;
      if (info.size === position) {
        await sleep();
        continue;
      }
      const handle = await open(path, 'r');
      try {
        // A file truncated and regrown past our position between two looks has the same or a
        // larger size: the bytes just before the position tell.
        if (tail.length > 0) {
          const check = new Uint8Array(tail.length);
          const { bytesRead } = await handle.read(check, 0, tail.length, position - tail.length);
          if (bytesRead !== tail.length || check.some((b, i) => b !== tail[i])) {
            position = 0;
            tail = new Uint8Array(0);
            options.onRestart?.('truncated');
          }
        }
        for (;;) {
          if (signal?.aborted) return;
          const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
          if (bytesRead === 0) break;
          position += bytesRead;
          const chunk = buffer.slice(0, bytesRead);
          tail = chunk.length >= FINGERPRINT ? chunk.slice(-FINGERPRINT) : joinTail(tail, chunk);
          yield chunk;
        }
      } finally {
        await handle.close();
      }
    }
  } finally {
    watcher?.close();
    signal?.removeEventListener('abort', nudge);
  }
}
