import { closeSync, openSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { joinPy, pyDumps, pyFloat } from '../formats/highbar/pyjson';

/** Seconds since the epoch with sub-millisecond precision, like Python's `time.time()`. */
export function nowSeconds(): number {
  return (performance.timeOrigin + performance.now()) / 1000;
}

/** One tool call, as {@link HighbarEmitter.tool} takes it. */
export interface HighbarToolCall {
  /** What the tool returned (any JSON). Default `null`. */
  result?: unknown;
  /** Why the call failed, also when the tool returned the failure as data. Default `null`. */
  error?: unknown;
  /** When the call started, in seconds since the epoch (see {@link nowSeconds}). */
  startedAt: number;
  /** When it ended, in seconds. Default: now. */
  endedAt?: number;
  /** The `X-Highbar-Test` header of the request being handled; becomes `context.test`. */
  test?: string | null | undefined;
}

/** Options of {@link createHighbarEmitter}. */
export interface HighbarEmitterOptions {
  /**
   * The trace file. Default: `HIGHBAR_TRACES_URL` from the environment, read at every write (a
   * path or a `file:` URL); unset or empty means nothing is written.
   */
  path?: string | undefined;
  /** The `hello.sdk` value. Default `"agentwire-emitter/1"`. */
  sdk?: string;
  /** Clock in seconds since the epoch. Default {@link nowSeconds}. */
  clock?: () => number;
}

/** A writer of the highbar trace contract v1, the TypeScript twin of its reference emitter. */
export interface HighbarEmitter {
  /** When the agent starts, before it listens, with the tools it records: highbar waits for it. */
  hello(tools: readonly string[]): void;
  /** One tool call. `error` says why it failed, also when the tool returned the failure. */
  tool(fn: string, args: Record<string, unknown>, call: HighbarToolCall): void;
  /** One message handled: before the reply goes out, also when the handling failed. */
  turn(test?: string | null, handled?: { message?: string; response?: string }): void;
}

function resolvePath(option: string | undefined): string | undefined {
  const value = option ?? process.env.HIGHBAR_TRACES_URL;
  if (value === undefined || value === '') return undefined;
  return value.startsWith('file:') ? fileURLToPath(value) : value;
}

/**
 * Appends one line with a single `write` on a descriptor opened in append mode: the kernel
 * places each append at the end atomically, so lines of concurrent writers never interleave.
 */
function appendLine(path: string, line: string): void {
  const bytes = Buffer.from(line, 'utf8');
  const fd = openSync(path, 'a', 0o644);
  try {
    let done = writeSync(fd, bytes, 0, bytes.length);
    // A short write happens only on a full disk or a signal; finish the line rather than cut it.
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates an emitter writing contract v1 lines in Python `json.dumps` style and the contract's
 * key order (`v`, `type`, `ts`, fields, `context`), so highbar and agentwire read them back
 * byte for byte. Nothing is written while no trace file is configured.
 *
 * @example
 * ```ts
 * const trace = createHighbarEmitter();
 * trace.hello(['get_order']);
 * const startedAt = nowSeconds();
 * trace.tool('get_order', { order_id: '1042' }, { result: { status: 'in transit' }, startedAt, test });
 * trace.turn(test);
 * ```
 */
export function createHighbarEmitter(options: HighbarEmitterOptions = {}): HighbarEmitter {
  const clock = options.clock ?? nowSeconds;
  const sdk = options.sdk ?? 'agentwire-emitter/1';
  const write = (type: string, fields: Array<[string, string]>, test?: string | null): void => {
    const path = resolvePath(options.path);
    if (path === undefined) return;
    const pieces: Array<[string, string]> = [
      ['v', '1'],
      ['type', pyDumps(type)],
      ['ts', pyFloat(clock())],
      ...fields,
    ];
    if (test) pieces.push(['context', pyDumps({ test }, 'context')]);
    appendLine(path, `${joinPy(pieces)}\n`);
  };
  return {
    hello(tools) {
      write('hello', [
        ['sdk', pyDumps(sdk)],
        ['pid', String(process.pid)],
        ['tools', pyDumps(tools, 'tools')],
      ]);
    },
    tool(fn, args, call) {
      write(
        'tool',
        [
          ['fn', pyDumps(fn, 'fn')],
          ['args', pyDumps(args, 'args')],
          ['result', pyDumps(call.result ?? null, 'result')],
          ['error', pyDumps(call.error ?? null, 'error')],
          ['started_at', pyFloat(call.startedAt)],
          ['ended_at', pyFloat(call.endedAt ?? clock())],
        ],
        call.test,
      );
    },
    turn(test, handled) {
      const fields: Array<[string, string]> = [];
      if (handled?.message !== undefined) fields.push(['message', pyDumps(handled.message)]);
      if (handled?.response !== undefined) fields.push(['response', pyDumps(handled.response)]);
      write('turn', fields, test);
    },
  };
}

const defaultEmitter = createHighbarEmitter();

/** {@link HighbarEmitter.hello} of the emitter that writes to `HIGHBAR_TRACES_URL`. */
export const hello: HighbarEmitter['hello'] = defaultEmitter.hello;
/** {@link HighbarEmitter.tool} of the emitter that writes to `HIGHBAR_TRACES_URL`. */
export const tool: HighbarEmitter['tool'] = defaultEmitter.tool;
/** {@link HighbarEmitter.turn} of the emitter that writes to `HIGHBAR_TRACES_URL`. */
export const turn: HighbarEmitter['turn'] = defaultEmitter.turn;
