import { type FSWatcher, watch } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { type ChunkDecoder, lineChunkDecoder } from '../codec';
import { createDiagnosticSink, type Diagnostic } from '../diagnostics';
import { DeclaredTools } from '../formats/highbar/declared';
import { type HighbarDecodeOptions, HighbarRecordDecoder } from '../formats/highbar/decode';
import type { AgentEvent } from '../model';

/** Options of {@link tailTrace}. */
export interface TailTraceOptions extends Omit<HighbarDecodeOptions, 'incompleteLine'> {
  /** Stops the tail; the iteration then ends. */
  signal?: AbortSignal;
  /**
   * `start` (default): every record of the file, then what is appended. `end`: only what is
   * appended from now on (the file is still scanned once for its declared tools).
   */
  from?: 'start' | 'end';
  /** Polling interval in ms, the fallback when `fs.watch` is unavailable or misses a change. Default 250. */
  pollMs?: number;
  /** Use `fs.watch` to wake at once on a change. Default true. */
  watch?: boolean;
}

/** One item of a tail: a canonical event, or a diagnostic, in file order. */
export type TailItem = { type: 'event'; event: AgentEvent } | { type: 'diagnostic'; diagnostic: Diagnostic };

/** A running tail: iterate it for items; `declared` follows the file's declared tools. */
export interface TraceTail extends AsyncIterable<TailItem> {
  /** The tools declared since the writer's last hello, plus every fn seen (highbar's rule). */
  readonly declared: DeclaredTools;
}

const READ_SIZE = 64 * 1024;

interface Generation {
  decoder: ChunkDecoder;
  out: AgentEvent[];
}

/**
 * Follows a highbar trace file another process appends to, as highbar reads it: from where it
 * stopped; a line not yet ended by a newline waits for the next read; a file that becomes
 * smaller than the position reached (or is replaced by another file) was recreated or rotated
 * and is read again from its start, with an `info` diagnostic (`rotated`), the old partial line
 * dropped, never glued to the new content; a file that does not exist yet is waited for. Wakes
 * on `fs.watch` with a polling fallback; ends when `signal` aborts.
 *
 * Call ids (`hb-<line>`) restart with the line numbers of a recreated file.
 *
 * @example
 * ```ts
 * const ac = new AbortController();
 * for await (const item of tailTrace(process.env.HIGHBAR_TRACES_URL!, { signal: ac.signal })) {
 *   if (item.type === 'event' && item.event.type === 'tool.end') console.log(item.event.name);
 * }
 * ```
 */
export function tailTrace(path: string, options: TailTraceOptions = {}): TraceTail {
  const declared = new DeclaredTools();
  return {
    declared,
    [Symbol.asyncIterator]: () => follow(path, options, declared),
  };
}

async function* follow(
  path: string,
  options: TailTraceOptions,
  declared: DeclaredTools,
): AsyncGenerator<TailItem, void, undefined> {
  const { signal } = options;
  const pollMs = options.pollMs ?? 250;
  const queue: TailItem[] = [];
  const decodeOptions: HighbarDecodeOptions = { ...options, incompleteLine: 'hold' };
  const newGeneration = (): Generation => {
    const gen: Generation = { decoder: undefined as unknown as ChunkDecoder, out: [] };
    // Diagnostics arrive mid-chunk: move the events decoded before them first, to keep file order.
    const sink = createDiagnosticSink(options.strict ?? false, (diagnostic) => {
      flush(gen);
      queue.push({ type: 'diagnostic', diagnostic });
      options.onDiagnostic?.(diagnostic);
    });
    gen.decoder = lineChunkDecoder(
      'highbar',
      'jsonl',
      decodeOptions,
      sink,
      new HighbarRecordDecoder(decodeOptions, sink),
    );
    return gen;
  };
  const flush = (gen: Generation): void => {
    for (const event of gen.out) {
      declared.add(event);
      queue.push({ type: 'event', event });
    }
    gen.out.length = 0;
  };

  let wake: (() => void) | undefined;
  let dirty = false; // a change seen while no one was waiting: the next sleep returns at once
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
      // The directory, not the file: it sees the file appear, be replaced and be written.
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
      if (dirty || signal?.aborted === true) {
        dirty = false;
        resolve();
        return;
      }
      const timer = setTimeout(() => wakeUp(), pollMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  let gen = newGeneration();
  let position = 0;
  let identity: string | undefined;
  const buffer = new Uint8Array(READ_SIZE);

  // Reads [position, size) into `push`; returns the new position.
  const readRange = async (
    from: number,
    size: number,
    push: (bytes: Uint8Array) => void,
  ): Promise<number> => {
    const handle = await open(path, 'r');
    try {
      while (from < size) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(READ_SIZE, size - from), from);
        if (bytesRead === 0) break;
        push(buffer.subarray(0, bytesRead));
        from += bytesRead;
      }
    } finally {
      await handle.close();
    }
    return from;
  };

  try {
    if (options.from === 'end') {
      const st = await statOrUndefined(path);
      if (st !== undefined) {
        // One scan of the whole file for the tools declared since the last hello; reading then
        // starts after its last complete line.
        const scan = new HighbarRecordDecoder(decodeOptions, createDiagnosticSink(false, undefined));
        const scanEvents: AgentEvent[] = [];
        let lastLineEnd = 0;
        const splitter = lineChunkDecoder(
          'highbar',
          'jsonl',
          decodeOptions,
          createDiagnosticSink(false, undefined),
          scan,
        );
        let at = 0;
        await readRange(0, st.size, (bytes) => {
          const nl = bytes.lastIndexOf(10);
          if (nl !== -1) lastLineEnd = at + nl + 1;
          at += bytes.length;
          splitter.push(bytes, scanEvents);
          for (const event of scanEvents) declared.add(event);
          scanEvents.length = 0;
        });
        position = lastLineEnd;
        identity = `${st.dev}:${st.ino}`;
      }
    }
    while (signal?.aborted !== true) {
      dirty = false;
      const st = await statOrUndefined(path);
      if (st === undefined) {
        await sleep();
        continue;
      }
      const id = `${st.dev}:${st.ino}`;
      if (identity !== undefined && (id !== identity || st.size < position)) {
        const why =
          id !== identity
            ? 'was replaced by another file'
            : `shrank from ${position} to ${st.size} bytes (truncated or recreated)`;
        queue.push({
          type: 'diagnostic',
          diagnostic: {
            code: 'rotated',
            severity: 'info',
            message: `${path} ${why}: reading it again from the start; a partial line held from before is dropped`,
            format: 'highbar',
          },
        });
        gen = newGeneration();
        position = 0;
      }
      identity = id;
      if (st.size > position) {
        const current = gen;
        position = await readRange(position, st.size, (bytes) => {
          current.decoder.push(bytes, current.out);
          flush(current);
        });
      }
      if (queue.length > 0) {
        for (const item of queue.splice(0)) yield item;
        continue;
      }
      await sleep();
    }
  } finally {
    signal?.removeEventListener('abort', wakeUp);
    watcher?.close();
    wakeUp();
  }
}

async function statOrUndefined(path: string): Promise<import('node:fs').Stats | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
