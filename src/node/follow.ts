import { type FSWatcher, type Stats, watch } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

/** Why {@link followFile} started over at byte 0. */
export type RestartReason = 'truncated' | 'replaced';

/** Options of {@link followFile}. */
export interface FollowOptions {
  /** Stops following (the iterator then ends). */
  signal?: AbortSignal;
  /** Polling interval in ms, the fallback when `fs.watch` is silent or unavailable. Default 250. */
  pollMs?: number;
  /** Use `fs.watch` (on the file's folder) to wake at once on a change. Default true. */
  watch?: boolean;
  /** Byte position to start at. Default 0 (the whole file, then what is appended). */
  start?: number;
  /**
   * Called when the file shrank, was truncated and regrown, or was replaced by another file:
   * reading restarts at byte 0. Called before the new file's first bytes are yielded.
   */
  onRestart?: (reason: RestartReason, detail: string) => void;
  /** Largest read at once, in bytes. Default 64 KiB. */
  chunkBytes?: number;
}

// The bytes just before the position reached: a file truncated and regrown past that position
// between two looks has the same or a larger size, and only these bytes tell.
const FINGERPRINT = 64;

function keepTail(tail: Uint8Array, chunk: Uint8Array): Uint8Array {
  if (chunk.length >= FINGERPRINT) return chunk.slice(chunk.length - FINGERPRINT);
  const all = new Uint8Array(tail.length + chunk.length);
  all.set(tail, 0);
  all.set(chunk, tail.length);
  return all.length > FINGERPRINT ? all.slice(all.length - FINGERPRINT) : all;
}

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Follows a file another process appends to, like `tail -f`: yields its bytes from `start`, then
 * every append as it lands. Wakes on `fs.watch` of the file's folder (which also sees the file
 * appear or be replaced) with a polling fallback. A file that does not exist yet is waited for;
 * one that becomes smaller than the position reached, or is truncated and regrown past it, is
 * read again from byte 0, after `onRestart` (and an empty chunk, so the consumer sees the restart
 * at once). The file stays open between reads, as log shippers keep it: when another file takes
 * its path (a rename over it, a delete and create), what was appended to the old file is read
 * to its end first, then the new file from byte 0 after `onRestart('replaced')`; a file renamed
 * away with nothing in its place yet is still read. Ends when `signal` aborts.
 */
export async function* followFile(path: string, options: FollowOptions = {}): AsyncGenerator<Uint8Array> {
  const { signal } = options;
  const pollMs = options.pollMs ?? 250;
  const chunkBytes = options.chunkBytes ?? 64 * 1024;
  const aborted = (): boolean => signal?.aborted === true;
  let position = options.start ?? 0;
  let identity: string | undefined;
  let tail: Uint8Array = new Uint8Array(0);
  let handle: FileHandle | undefined;

  let wake: (() => void) | undefined;
  let dirty = false; // a change seen while nobody waited: the next sleep returns at once
  const wakeUp = (): void => {
    const w = wake;
    wake = undefined;
    if (w === undefined) dirty = true;
    else w();
  };
  signal?.addEventListener('abort', wakeUp);
  let watcher: FSWatcher | undefined;
  if (options.watch !== false) {
    try {
      const name = basename(path);
      watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
        if (file === null || file === name) wakeUp();
      });
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined; // polling alone
    }
  }
  const sleep = (): Promise<void> =>
    new Promise<void>((resolve) => {
      if (dirty || aborted()) {
        dirty = false;
        resolve();
        return;
      }
      const timer = setTimeout(wakeUp, pollMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const restart = (reason: RestartReason, detail: string): void => {
    position = 0;
    tail = new Uint8Array(0);
    options.onRestart?.(reason, detail);
  };
  const buffer = new Uint8Array(chunkBytes);
  // Whether the bytes just before `position` are still the ones read there.
  const sameTail = async (file: FileHandle): Promise<boolean> => {
    if (tail.length === 0) return true;
    const check = new Uint8Array(tail.length);
    const { bytesRead } = await file.read(check, 0, tail.length, position - tail.length);
    return bytesRead === tail.length && check.every((b, i) => b === tail[i]);
  };
  // Reads the open file from `position` to its current end. The bytes before `position` are
  // compared after the first read, not only before it: a file truncated and written again
  // between a look and the read would otherwise be read from the middle of its new content.
  async function* drain(file: FileHandle): AsyncGenerator<Uint8Array> {
    let first = true;
    for (;;) {
      if (aborted()) return;
      const { bytesRead } = await file.read(buffer, 0, chunkBytes, position);
      if (bytesRead === 0) return;
      if (first && !(await sameTail(file))) {
        restart('truncated', 'was truncated and written again past the position reached');
        yield new Uint8Array(0);
        continue;
      }
      first = false;
      position += bytesRead;
      const chunk = buffer.slice(0, bytesRead);
      tail = keepTail(tail, chunk);
      yield chunk;
    }
  }

  try {
    while (!aborted()) {
      dirty = false;
      if (handle === undefined) {
        handle = await openOrUndefined(path);
        if (handle === undefined) {
          await sleep();
          continue;
        }
        const info = await handle.stat();
        const id = `${info.dev}:${info.ino}`;
        // Another file than the one read before (deleted, then created again).
        if (identity !== undefined && id !== identity) {
          restart('replaced', 'was replaced by another file');
          yield new Uint8Array(0);
        }
        identity = id;
      }
      const info = await handle.stat();
      let restarted = false;
      if (info.size < position) {
        restart('truncated', `shrank from ${position} to ${info.size} bytes`);
        restarted = true;
      }
      // An empty chunk hands control to the consumer at once, so a restart is seen even before
      // the file has new bytes.
      if (restarted) yield new Uint8Array(0);
      let read = false;
      for await (const chunk of drain(handle)) {
        read = true;
        yield chunk;
      }
      if (aborted()) return;
      // Does the path still name the file held open? Another file there: finish this one first
      // (bytes appended just before the switch), then follow the new one from its start.
      const now = await statOrUndefined(path);
      if (now !== undefined && `${now.dev}:${now.ino}` !== identity) {
        for await (const chunk of drain(handle)) yield chunk;
        await handle.close();
        handle = undefined;
        identity = `${now.dev}:${now.ino}`;
        restart('replaced', 'was replaced by another file');
        yield new Uint8Array(0);
        continue;
      }
      if (!read) await sleep();
    }
  } finally {
    signal?.removeEventListener('abort', wakeUp);
    watcher?.close();
    await handle?.close();
  }
}

async function openOrUndefined(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
