import { createReadStream } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { type ChunkDecoder, lineChunkDecoder, type RecordDecoder } from '../codec';
import { createDiagnosticSink, type Diagnostic, describePlace } from '../diagnostics';
import { DeclaredTools } from '../formats/highbar/declared';
import { createHighbarRecordDecoder, type HighbarDecodeOptions } from '../formats/highbar/decode';
import type { AgentEvent } from '../model';
import { followFile } from './follow';

/**
 * Where a tail stands, to resume it after a restart without rereading or losing a line: the byte
 * offset after the last line whose items were all yielded, the number the next line gets, and a
 * fingerprint of the file's head (its first bytes, up to 64, hex) that tells the same file from a
 * replaced or rewritten one. Plain JSON: store it as it is.
 */
export interface TailCheckpoint {
  /** Byte offset of the next line to read (always at a line boundary). */
  offset: number;
  /** The 1-based number of that line: numbering continues after a resume. */
  line: number;
  /** Hex of the file's first `min(64, offset)` bytes. */
  head: string;
}

/** Options of {@link tailTrace}. */
export interface TailTraceOptions extends Omit<HighbarDecodeOptions, 'incompleteLine'> {
  /** Stops the tail; the iteration then ends. */
  signal?: AbortSignal;
  /**
   * `start` (default): every record of the file, then what is appended. `end`: only what is
   * appended from now on (the file is still scanned once for its declared tools). A
   * {@link TailCheckpoint} (from {@link TraceTail.checkpoint}): resume there, with line numbers
   * continuing; a file that is shorter than the checkpoint or has another head was replaced or
   * truncated since, and is read from its start after a `rotated` diagnostic.
   */
  from?: 'start' | 'end' | TailCheckpoint;
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
  /**
   * The position after every item yielded so far, at a line boundary (a line's items are yielded
   * together): call it after handling an item, store it, and pass it back as `from` to resume.
   */
  checkpoint(): TailCheckpoint;
}

const HEAD_BYTES = 64;

interface Generation {
  decoder: ChunkDecoder;
  out: AgentEvent[];
  // Where this generation's numbering starts (a resumed file continues the count).
  lineBase: number;
  offsetBase: number;
  // Bytes of the file read from its start, up to HEAD_BYTES, for the head fingerprint.
  head: Uint8Array;
  headLength: number;
  // Bytes fed and newlines seen in them, for the position after the last complete line.
  fed: number;
  lines: number;
  // The offset of the last mark queued: marks only move forward.
  marked: number;
}

// A position reached in the queue: every item before it belongs to lines before `offset`.
interface Mark {
  type: 'mark';
  offset: number;
  line: number;
  head: string;
}

const hex = (bytes: Uint8Array, length: number): string =>
  Array.from(bytes.subarray(0, length), (b) => b.toString(16).padStart(2, '0')).join('');

const PLACE = /^line \d+ \(byte \d+\)/;

// A diagnostic of the line splitter, numbered from the generation's start: renumbered to the file.
function shifted(d: Diagnostic, lines: number, bytes: number): Diagnostic {
  if (lines === 0 && bytes === 0) return d;
  const line = d.line === undefined ? undefined : d.line + lines;
  const offset = d.offset === undefined ? undefined : d.offset + bytes;
  const moved: Diagnostic = { ...d };
  if (line !== undefined) moved.line = line;
  if (offset !== undefined) moved.offset = offset;
  if (line !== undefined && offset !== undefined)
    moved.message = d.message.replace(PLACE, describePlace(line, offset));
  return moved;
}

/**
 * Follows a highbar trace file another process appends to, as highbar reads it: from where it
 * stopped; a line not yet ended by a newline waits for the next read; a file that becomes
 * smaller than the position reached (or is replaced by another file) was recreated or rotated
 * and is read again from its start, with an `info` diagnostic (`rotated`), the old partial line
 * dropped, never glued to the new content; a file renamed over the path is switched to only after
 * the old file was read to its end; a file that does not exist yet is waited for. Wakes on
 * `fs.watch` with a polling fallback; ends when `signal` aborts. `checkpoint()` gives the
 * position to resume from after a restart (`from: checkpoint`).
 *
 * Call ids (`hb-<line>`) restart with the line numbers of a recreated file, and continue after a
 * resume from a checkpoint.
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
  const state = { committed: { offset: 0, line: 1, head: '' } as TailCheckpoint };
  if (typeof options.from === 'object') state.committed = { ...options.from };
  return {
    declared,
    checkpoint: () => ({ ...state.committed }),
    [Symbol.asyncIterator]: () => follow(path, options, declared, state),
  };
}

async function* follow(
  path: string,
  options: TailTraceOptions,
  declared: DeclaredTools,
  state: { committed: TailCheckpoint },
): AsyncGenerator<TailItem, void, undefined> {
  const { signal } = options;
  const queue: Array<TailItem | Mark> = [];
  const decodeOptions: HighbarDecodeOptions = { ...options, incompleteLine: 'hold' };
  const newGeneration = (lineBase: number, offsetBase: number, head: Uint8Array): Generation => {
    const gen: Generation = {
      decoder: undefined as unknown as ChunkDecoder,
      out: [],
      lineBase,
      offsetBase,
      head: new Uint8Array(HEAD_BYTES),
      headLength: Math.min(head.length, HEAD_BYTES),
      fed: 0,
      lines: 0,
      marked: offsetBase,
    };
    gen.head.set(head.subarray(0, gen.headLength));
    // Diagnostics arrive mid-chunk: move the events decoded before them first, to keep file order.
    const report = (diagnostic: Diagnostic): void => {
      flush(gen);
      // A diagnostic at a line's start (a blank line, one too long) also says the lines before
      // it are done: blank lines never reach the record decoder, which marks the others.
      const { line, offset } = diagnostic;
      if (line !== undefined && offset !== undefined && offset >= gen.marked)
        queue.push(markAt(gen, offset, line));
      queue.push({ type: 'diagnostic', diagnostic });
      options.onDiagnostic?.(diagnostic);
    };
    const sink = createDiagnosticSink(options.strict ?? false, report);
    const records = createHighbarRecordDecoder(decodeOptions, sink);
    // The splitter numbers from 0 / line 1: a resumed generation shifts lines and diagnostics.
    const splitterSink = createDiagnosticSink(options.strict ?? false, (d) =>
      report(shifted(d, lineBase, offsetBase)),
    );
    const shiftedRecords: RecordDecoder = {
      line: (text, line, offset, out, bytes) => {
        // Every item of the lines before this one is out: that position is committed.
        flush(gen);
        queue.push(markAt(gen, offset + offsetBase, line + lineBase));
        records.line(text, line + lineBase, offset + offsetBase, out, bytes);
      },
      end: (out) => records.end(out),
    };
    gen.decoder = lineChunkDecoder('highbar', 'jsonl', decodeOptions, splitterSink, shiftedRecords);
    return gen;
  };
  const markAt = (gen: Generation, offset: number, line: number): Mark => {
    gen.marked = offset;
    return { type: 'mark', offset, line, head: hex(gen.head, Math.min(gen.headLength, offset)) };
  };
  const flush = (gen: Generation): void => {
    for (const event of gen.out) {
      declared.add(event);
      queue.push({ type: 'event', event });
    }
    gen.out.length = 0;
  };

  let position = 0;
  let first: { line: number; offset: number; head: Uint8Array } = {
    line: 1,
    offset: 0,
    head: new Uint8Array(0),
  };
  if (options.from === 'end') {
    const scanned = await scanDeclared(path, decodeOptions, declared, undefined);
    position = scanned.end;
    first = { line: scanned.lines + 1, offset: scanned.end, head: scanned.head };
    state.committed = {
      offset: position,
      line: first.line,
      head: hex(first.head, Math.min(HEAD_BYTES, position)),
    };
  } else if (typeof options.from === 'object') {
    const from = options.from;
    const head = await readHead(path);
    if (head.size >= from.offset && hex(head.bytes, Math.min(HEAD_BYTES, from.offset)) === from.head) {
      // The declared tools come from the lines before the checkpoint too.
      await scanDeclared(path, decodeOptions, declared, from.offset);
      position = from.offset;
      first = { line: from.line, offset: from.offset, head: head.bytes };
    } else {
      const why =
        head.size < from.offset
          ? `is shorter (${head.size} bytes) than the checkpoint (${from.offset})`
          : 'has another head than the checkpoint';
      queue.push(rotated(path, `${why}: replaced or truncated since`));
      state.committed = { offset: 0, line: 1, head: '' };
    }
  }
  let gen = newGeneration(first.line - 1, first.offset, first.head);
  const chunks = followFile(path, {
    start: position,
    pollMs: options.pollMs ?? 250,
    watch: options.watch !== false,
    ...(signal === undefined ? {} : { signal }),
    onRestart: (_reason, detail) => {
      // What the old generation decoded is out before the notice.
      flush(gen);
      queue.push(rotated(path, `${detail} (truncated, rotated or recreated)`));
      gen = newGeneration(0, 0, new Uint8Array(0));
      queue.push(markAt(gen, 0, 1));
    },
  });
  for await (const chunk of chunks) {
    // Restart notices queued by followFile come before the new file's first records.
    const current = gen;
    yield* drainQueue(queue, state);
    if (current.offsetBase === 0 && current.fed < HEAD_BYTES) {
      const take = Math.min(HEAD_BYTES - current.fed, chunk.length);
      current.head.set(chunk.subarray(0, take), current.fed);
      current.headLength = current.fed + take;
    }
    current.fed += chunk.length;
    current.decoder.push(chunk, current.out);
    flush(current);
    // The bytes after the chunk's last newline are a line still being written.
    const lf = chunk.lastIndexOf(10);
    if (lf !== -1) {
      current.lines += countLF(chunk);
      const end = current.offsetBase + current.fed - (chunk.length - lf - 1);
      queue.push(markAt(current, end, current.lineBase + current.lines + 1));
    }
    yield* drainQueue(queue, state);
  }
}

function countLF(bytes: Uint8Array): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

function rotated(path: string, detail: string): TailItem {
  return {
    type: 'diagnostic',
    diagnostic: {
      code: 'rotated',
      severity: 'info',
      message: `${path} ${detail}: reading it again from the start; a partial line held from before is dropped`,
      format: 'highbar',
    },
  };
}

// Yields the queued items; a mark right after an item means the item's line is complete, so it
// is committed before the item is handed out: a checkpoint taken after handling the item
// resumes after its line (and one taken before that was stored does not).
function* drainQueue(
  queue: Array<TailItem | Mark>,
  state: { committed: TailCheckpoint },
): Generator<TailItem, void, undefined> {
  let i = 0;
  try {
    while (i < queue.length) {
      const item = queue[i++]!;
      if (item.type === 'mark') {
        state.committed = { offset: item.offset, line: item.line, head: item.head };
        continue;
      }
      while (i < queue.length && queue[i]!.type === 'mark') {
        const mark = queue[i++] as Mark;
        state.committed = { offset: mark.offset, line: mark.line, head: mark.head };
      }
      yield item;
    }
  } finally {
    queue.splice(0, i);
  }
}

// The file's size and first bytes (empty when it does not exist).
async function readHead(path: string): Promise<{ size: number; bytes: Uint8Array }> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    const size = (await handle.stat()).size;
    const bytes = new Uint8Array(Math.min(HEAD_BYTES, size));
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    return { size, bytes: bytes.subarray(0, bytesRead) };
  } catch {
    return { size: 0, bytes: new Uint8Array(0) };
  } finally {
    await handle?.close();
  }
}

// One scan of the file, up to `limit` bytes (else its whole length), for the tools declared
// since the last hello (highbar does this at start). Returns the byte after the last complete
// line, the number of lines before it, and the file's first bytes.
async function scanDeclared(
  path: string,
  decodeOptions: HighbarDecodeOptions,
  declared: DeclaredTools,
  limit: number | undefined,
): Promise<{ end: number; lines: number; head: Uint8Array }> {
  const quiet = createDiagnosticSink(false, undefined);
  const scanner = lineChunkDecoder(
    'highbar',
    'jsonl',
    decodeOptions,
    quiet,
    createHighbarRecordDecoder(decodeOptions, quiet),
  );
  const events: AgentEvent[] = [];
  let at = 0;
  let end = 0;
  let lines = 0;
  const head = new Uint8Array(HEAD_BYTES);
  let headLength = 0;
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return { end: 0, lines: 0, head: new Uint8Array(0) };
  }
  if (limit !== undefined) size = Math.min(size, limit);
  if (size === 0) return { end: 0, lines: 0, head: new Uint8Array(0) };
  for await (const chunk of createReadStream(path, { end: size - 1 }) as AsyncIterable<Uint8Array>) {
    if (headLength < HEAD_BYTES) {
      const take = Math.min(HEAD_BYTES - headLength, chunk.length);
      head.set(chunk.subarray(0, take), headLength);
      headLength += take;
    }
    const nl = chunk.lastIndexOf(10);
    if (nl !== -1) {
      end = at + nl + 1;
      lines += countLF(chunk);
    }
    at += chunk.length;
    scanner.push(chunk, events);
    for (const event of events) declared.add(event);
    events.length = 0;
  }
  return { end, lines, head: head.subarray(0, headLength) };
}
