import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type ChunkDecoder, lineChunkDecoder } from '../codec';
import { createDiagnosticSink, type Diagnostic } from '../diagnostics';
import { DeclaredTools } from '../formats/highbar/declared';
import { type HighbarDecodeOptions, HighbarRecordDecoder } from '../formats/highbar/decode';
import type { AgentEvent } from '../model';
import { followFile } from './follow';

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

  let gen = newGeneration();
  let position = 0;
  if (options.from === 'end') position = await scanDeclared(path, decodeOptions, declared);
  const chunks = followFile(path, {
    start: position,
    pollMs: options.pollMs ?? 250,
    watch: options.watch !== false,
    ...(signal === undefined ? {} : { signal }),
    onRestart: (_reason, detail) => {
      queue.push({
        type: 'diagnostic',
        diagnostic: {
          code: 'rotated',
          severity: 'info',
          message: `${path} ${detail} (truncated, rotated or recreated): reading it again from the start; a partial line held from before is dropped`,
          format: 'highbar',
        },
      });
      gen = newGeneration();
    },
  });
  for await (const chunk of chunks) {
    // Restart notices queued by followFile come before the new file's first records.
    const current = gen;
    for (const item of queue.splice(0)) yield item;
    current.decoder.push(chunk, current.out);
    flush(current);
    for (const item of queue.splice(0)) yield item;
  }
}

// One scan of the whole file for the tools declared since the last hello (highbar does this at
// start); returns the byte after the last complete line, where following then begins.
async function scanDeclared(
  path: string,
  decodeOptions: HighbarDecodeOptions,
  declared: DeclaredTools,
): Promise<number> {
  const quiet = createDiagnosticSink(false, undefined);
  const scanner = lineChunkDecoder(
    'highbar',
    'jsonl',
    decodeOptions,
    quiet,
    new HighbarRecordDecoder(decodeOptions, quiet),
  );
  const events: AgentEvent[] = [];
  let at = 0;
  let lastLineEnd = 0;
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return 0;
  }
  if (size === 0) return 0;
  for await (const chunk of createReadStream(path, { end: size - 1 }) as AsyncIterable<Uint8Array>) {
    const nl = chunk.lastIndexOf(10);
    if (nl !== -1) lastLineEnd = at + nl + 1;
    at += chunk.length;
    scanner.push(chunk, events);
    for (const event of events) declared.add(event);
    events.length = 0;
  }
  return lastLineEnd;
}
