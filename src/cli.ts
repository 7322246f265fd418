import type { ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  constants as fsConstants,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { appendFile, type FileHandle, open } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { eventJson } from './event-json';
import { type CodecCount, growthBudget, largeObjectBudget } from './heap-budget';
// The CLI imports the public entry points only: the build maps them to the library's own files
// (tsup.config.ts), so dist/cli.js holds the command line and no second copy of the library.
import type { AgentEvent, CheckingCodec, Diagnostic, Format } from './index';
import { type AccessGuard, TOKEN_ENV } from './node/access';
import type { SessionLog } from './node/index';
import { encodePieces, PIECE_BYTES } from './write-pieces';

// The young generation keeps its first size. V8 grows it (to 32 MiB) in any process that allocates
// for long, though every event here dies young: the streaming commands' peak memory would be
// mostly that. Set before the library loads (hence the dynamic import below), or loading grows it.
setFlagsFromString('--semi-space-growth-factor=1');
// The optimising compiler inlines less per function (half V8's default budget of bytecode inlined
// into one function; small functions are inlined whatever the budget). Its graphs are built in
// zones that glibc gives from the compile threads' own arenas, which keep their pages resident
// after the compile: smaller graphs, smaller zones, and every command's peak is lower, while the
// streaming loops' time was not longer (docs/performance.md, "Round forty").
// Unlike the compile threads themselves, which V8 makes when node starts, the budget counts for
// each compile, so a bin can set it here.
setFlagsFromString('--max-inlined-bytecode-size-cumulative=460');
// What survives a few scavenges (a chunk's pieces, the decoder's state, a writer's held results)
// dies in old space, which V8 lets fill until its first full GC (limit set from the live size after
// start-up): the peak grew with the file (80–91 MiB at 1 GiB), or with what a codec pair promotes.
// The heap is looked at every HEAP_CHECK_EVERY bytes of input, and a full GC runs once it holds
// its budget (src/heap-budget.ts) more than the last full GC left: the peak stays flat whatever the file and
// the formats, and a stream that promotes little is rarely collected (docs/performance.md "The
// CLI against jq"). Large objects (a line, a tool's output and its JSON past the regular object
// size) that are alive at a scavenge go straight to the large-object space, which only a full GC
// frees: its own smaller budget (largeObjectBudget, half as large for a convert) keeps streams of
// large lines as low as the rest without collecting more often the streams that have none. The
// growth allowed shrinks as what a full GC left grows (growthBudget), so a pair that keeps more
// alive does not peak that much higher. Node gives a running process the collector through a new
// context once --expose-gc is set.
setFlagsFromString('--expose-gc');
const fullGc = runInNewContext('gc') as () => void;
setFlagsFromString('--no-expose-gc');
const HEAP_CHECK_EVERY = 256 * 1024;
const COLLECT_EVERY = 32 * 1024 * 1024;
const {
  AGENT_EVENT_TYPES,
  CODEC_FORMATS,
  convertChunks,
  diagnosticAt,
  emptyStream,
  isAgentwireError,
  loadCodec,
  loadDetection,
  neutralizeControls,
  TimelineRenderer,
} = await import('./engine');

// The codec of a known format, loaded with its modules only (a command loads the codecs it runs).
async function codecOf(format: Format): Promise<CheckingCodec> {
  return (await loadCodec(format))!;
}

// What serving and following need (an HTTP server, session logs, Redis, the viewer) is loaded by
// the commands that serve or follow: decode, convert and check start without it, smaller.
async function serverModules() {
  const [http, node, viewer, redis] = await Promise.all([
    import('node:http'),
    import('./node/index'),
    import('./node/viewer'),
    import('./redis/index'),
  ]);
  return { createServer: http.createServer, ...node, ...viewer, ...redis };
}
type ServerModules = Awaited<ReturnType<typeof serverModules>>;

// The agentwire command line. One exit-code rule for every command (EXIT_CODES below).

/** Every exit code the CLI uses, with its meaning (printed by --help, listed in the README). */
const EXIT_CODES: ReadonlyArray<[number, string]> = [
  [0, 'done; the input had no error diagnostics (check: no errors, and no warnings with --strict)'],
  [1, 'the input had error diagnostics (check: errors, or warnings with --strict); --lenient: 0'],
  [64, 'usage error: unknown command or option, an option of another command, a bad value'],
  [
    66,
    'the input cannot be opened or read: no such file, a directory, no permission, an I/O error, a command that cannot start',
  ],
  [
    69,
    'serve cannot listen on the port (in use, or not allowed), or cannot reach its --redis; otel: the OpenTelemetry packages are missing, or the collector did not take some spans',
  ],
  [70, 'internal error (a bug in agentwire: please report it)'],
  [
    74,
    'the output cannot be written (no space left on the device, an I/O error; serve: its --log file); a reader that went away: quietly, the code so far',
  ],
];

class UsageError extends Error {}
/** An input that cannot be opened (exit 66). */
class InputError extends Error {}
/** Standard output cannot be written (exit 74); a closed pipe is not this (quiet, see EPIPE). */
class OutputError extends Error {}
class ListenError extends Error {}
/** A service the command needs is missing (exit 69). */
class UnavailableError extends ListenError {}

type CommandName = 'decode' | 'convert' | 'view' | 'check' | 'serve' | 'otel';

interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  value?: string; // the value's placeholder in help
  help: string;
}

interface CommandSpec {
  synopsis: string;
  summary: string;
  options: Record<string, OptionSpec>;
  notes?: string;
}

const formatList = (): string => CODEC_FORMATS.join(', ');

// Writer framings by target format: the formats whose writer offers more than one.
const FRAMINGS: Partial<Record<Format, readonly string[]>> = { nativeharness: ['sse', 'json', 'jsonl'] };

const FORMAT: OptionSpec = {
  type: 'string',
  value: 'F',
  help: 'the input format (default: detected from the first line)',
};
const MAX_LINE: OptionSpec = {
  type: 'string',
  value: 'N',
  help: 'longest line accepted, in bytes (default: 16777216 for claude, codex, gemini, opencode, cursor, amp, copilot; 1048576 for the others)',
};
const LENIENT: OptionSpec = { type: 'boolean', help: 'exit 0 even when the input had error diagnostics' };
const QUIET: OptionSpec = { type: 'boolean', short: 'q', help: 'print error diagnostics only' };
const HELP: OptionSpec = { type: 'boolean', short: 'h', help: 'this help' };

const COMMANDS: Record<CommandName, CommandSpec> = {
  decode: {
    synopsis: 'agentwire decode [options] [file|-]',
    summary: 'print the canonical events, one JSON object per line',
    options: {
      format: FORMAT,
      'max-line-bytes': MAX_LINE,
      hints: {
        type: 'boolean',
        help: "keep provenance.hints (the writer's private facts, often the whole input line)",
      },
      lenient: LENIENT,
      quiet: QUIET,
      help: HELP,
    },
  },
  convert: {
    synopsis: 'agentwire convert --to F [options] [file|-]',
    summary: 'convert between formats, streaming (flushed per input chunk)',
    options: {
      to: { type: 'string', value: 'F', help: 'the output format (required)' },
      from: { ...FORMAT, help: 'the input format (default: detected); --format is the same' },
      format: FORMAT,
      framing: {
        type: 'string',
        value: 'X',
        help: `the output framing, for ${Object.entries(FRAMINGS)
          .map(([f, list]) => `${f}: ${list!.join('|')}`)
          .join('; ')}`,
      },
      'max-line-bytes': MAX_LINE,
      lenient: LENIENT,
      quiet: { ...QUIET, help: 'print error diagnostics only (no loss summary)' },
      json: {
        type: 'boolean',
        help: 'every diagnostic (each loss report too) as one JSON object per line on stderr',
      },
      help: HELP,
    },
    notes:
      'What the target format cannot hold is summarised on stderr at the end: one line per lost field,\nwith the number of event types that lost it.',
  },
  view: {
    synopsis: 'agentwire view [options] [file|-]',
    summary: 'a human timeline of any stream',
    options: {
      format: FORMAT,
      follow: { type: 'boolean', short: 'f', help: 'follow a growing file like tail -f (Ctrl-C ends)' },
      web: {
        type: 'boolean',
        help: 'the browser viewer instead: serve the stream (serve options apply) and print its URL',
      },
      port: { type: 'string', value: 'N', help: '(--web) the port (default 4700; 0: any free port)' },
      'max-line-bytes': MAX_LINE,
      lenient: LENIENT,
      quiet: QUIET,
      help: HELP,
    },
  },
  check: {
    synopsis: 'agentwire check [options] [file|-]',
    summary: 'validate a stream (schema, ordering, bounds)',
    options: {
      format: FORMAT,
      json: { type: 'boolean', help: 'findings as JSON, one object per line' },
      strict: { type: 'boolean', help: 'warnings fail too (exit 1)' },
      'max-line-bytes': MAX_LINE,
      help: HELP,
    },
    notes:
      "Every finding is printed as it is found, in bounded memory. Errors fail (exit 1); warnings\nare shown and fail only with --strict; info never fails. A finding a rule can only make later\n(a tool call never answered, found at its run's end) comes after later lines' findings.",
  },
  serve: {
    synopsis: 'agentwire serve [options] [file|-|-- command args…]',
    summary: 'serve any stream as nativeharness SSE on 127.0.0.1, with Last-Event-ID resume',
    options: {
      port: { type: 'string', value: 'N', help: 'the port (default 4700; 0: any free port)' },
      format: FORMAT,
      workspace: { type: 'string', value: 'W', help: 'the workspace id in the URL (default local)' },
      session: { type: 'string', value: 'S', help: 'the session id in the URL (default live)' },
      log: { type: 'string', value: 'FILE', help: 'append every served event to FILE (persist, then emit)' },
      host: {
        type: 'string',
        value: 'ADDR',
        help: 'listen on ADDR (default 127.0.0.1); beyond loopback a token is required',
      },
      token: {
        type: 'string',
        value: 'T',
        help: `every request presents T: Authorization: Bearer T, or the viewer's cookie after opening its URL once with ?token=T (default: $${TOKEN_ENV})`,
      },
      cors: {
        type: 'string',
        value: 'ORIGIN',
        help: 'the one origin allowed to read cross-origin (default: none)',
      },
      as: {
        type: 'string',
        value: 'P',
        help: 'serve in a UI protocol instead: ag-ui or ai-sdk (GET or POST …/stream; --log: its JSON Lines)',
      },
      redis: {
        type: 'string',
        value: 'URL',
        help: 'keep the log on Redis Streams (redis://host:port), so several serve processes serve the session',
      },
      'read-only': {
        type: 'boolean',
        help: 'with --redis: serve what another process appends; read no input',
      },
      retain: {
        type: 'string',
        value: 'N',
        help: 'keep the newest N events per session; older cursors get a gap',
      },
      'max-line-bytes': MAX_LINE,
      lenient: LENIENT,
      quiet: QUIET,
      help: HELP,
    },
    notes: [
      'A file that cannot be opened, or a command that cannot be started, ends serve at once (exit 66)',
      'before anything is served. When the input ends — the file is read, or the command exits (its',
      'exit status is printed) — the session is complete and the server stays up so clients can replay',
      'it, until Ctrl-C (SIGINT) or SIGTERM; then serve exits by the rule below. With --redis, one',
      'serve appends and any number of --read-only ones serve the same session (docs/scaling.md).',
      'The viewer is at / (docs/viewer.md). Only requests naming the server itself in Host are',
      'answered (421 otherwise); no CORS headers unless --cors.',
    ].join('\n'),
  },
  otel: {
    synopsis: 'agentwire otel [options] [file|-|-- command args…]',
    summary: 'export any stream as OpenTelemetry GenAI spans (run → rounds → tools) over OTLP/HTTP',
    options: {
      endpoint: {
        type: 'string',
        value: 'URL',
        help: "the collector's base URL (/v1/traces is added; default: OTEL_EXPORTER_OTLP_ENDPOINT or http://localhost:4318)",
      },
      'service-name': { type: 'string', value: 'N', help: 'service.name of the traces (default agentwire)' },
      format: FORMAT,
      follow: { type: 'boolean', short: 'f', help: 'follow a file another process appends to (Ctrl-C ends)' },
      'capture-content': {
        type: 'boolean',
        help: 'record prompts, answers, tool arguments and results (off by default: they may hold secrets)',
      },
      'max-line-bytes': MAX_LINE,
      lenient: LENIENT,
      quiet: QUIET,
      help: HELP,
    },
    notes: [
      'Spans follow the GenAI semantic conventions (docs/otel.md). They are sent in batches and flushed',
      'when the input ends, and on Ctrl-C (SIGINT) or SIGTERM; spans still open then are ended as',
      'incomplete. Needs the optional packages @opentelemetry/api, @opentelemetry/sdk-trace,',
      '@opentelemetry/resources and @opentelemetry/exporter-trace-otlp-http (exit 69 without them). A collector',
      'that cannot be reached or refuses a batch is said once on stderr, and the command exits 69.',
    ].join('\n'),
  },
};

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

function exitCodeTable(): string {
  return EXIT_CODES.map(([code, text]) => `  ${String(code).padEnd(4)}${text}`).join('\n');
}

function usage(): string {
  const lines = ['agentwire — read, check and convert AI agent event streams', '', 'Usage:'];
  for (const spec of Object.values(COMMANDS)) lines.push(`  ${spec.synopsis}`, `      ${spec.summary}`);
  lines.push(
    '  agentwire <command> --help | agentwire --version | agentwire --help',
    '',
    `Formats: ${formatList()}`,
    '',
    'Exit codes (every command):',
    exitCodeTable(),
    '',
  );
  return lines.join('\n');
}

function commandHelp(name: CommandName): string {
  const spec = COMMANDS[name];
  const lines = [`${spec.synopsis}`, `  ${spec.summary}`, '', 'Options:'];
  for (const [option, o] of Object.entries(spec.options)) {
    const flag = `${o.short ? `-${o.short}, ` : ''}--${option}${o.value ? ` ${o.value}` : ''}`;
    lines.push(`  ${flag.padEnd(22)}${o.help}`);
  }
  if (spec.notes) lines.push('', spec.notes);
  lines.push('', `Formats: ${formatList()}`, '', 'Exit codes:', exitCodeTable(), '');
  return lines.join('\n');
}

function version(): string {
  try {
    const url = new URL('../package.json', import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function checkFormat(name: string | undefined, option: string): Format | undefined {
  if (name === undefined) return undefined;
  if (!CODEC_FORMATS.includes(name as Format)) {
    throw new UsageError(`${option}: unknown format ${JSON.stringify(name)} (known: ${formatList()})`);
  }
  return name as Format;
}

// The input format: --format, or convert's --from (the same option, named to pair with --to).
// Both, naming different formats, contradict each other: neither is silently dropped.
function inputFormat(values: Parsed['values']): Format | undefined {
  const from = str(values.from);
  const given = str(values.format);
  if (from !== undefined && given !== undefined && from !== given)
    throw new UsageError(
      `convert: --from ${JSON.stringify(from)} and --format ${JSON.stringify(given)} disagree (they are the same option); give one`,
    );
  return from === undefined ? checkFormat(given, '--format') : checkFormat(from, '--from');
}

/** Counts what a command reported, prints diagnostics, and gives the exit code. */
class Reporter {
  errors = 0;
  warnings = 0;
  constructor(
    private readonly source: string,
    private readonly options: { quiet?: boolean; json?: boolean; lenient?: boolean },
  ) {}

  report(d: Diagnostic): void {
    if (d.severity === 'error') this.errors++;
    else if (d.severity === 'warning') this.warnings++;
    if (this.options.json) {
      say(`${JSON.stringify(d)}\n`);
      return;
    }
    if (this.options.quiet && d.severity !== 'error') return;
    say(`${describe(d, this.source)}\n`);
  }

  /** The exit code by the one rule: 1 when an error was reported, unless --lenient. */
  code(): number {
    return this.errors > 0 && !this.options.lenient ? 1 : 0;
  }
}

// One line per diagnostic, safe for a terminal: a message quotes input (a parser's excerpt of a
// bad line), and input may hold escape sequences; they and line breaks are shown, not executed.
function describe(d: Diagnostic, source: string): string {
  const where = d.line === undefined ? '' : `${d.line}:${d.offset ?? 0}:`;
  return neutralizeControls(`${source}:${where} ${d.severity} ${d.code}: ${d.message}`).replace(/\n/g, '\\n');
}

interface Input {
  codec: CheckingCodec;
  chunks: AsyncIterable<Uint8Array>;
}

// The input's format: as given, else detected from its first line (the chunks read are replayed).
// An input whose format cannot be told is an error diagnostic; an empty one decodes to nothing.
async function openInput(
  format: Format | undefined,
  source: AsyncIterable<Uint8Array>,
  reporter: Reporter,
  undetectedTo: (d: Diagnostic) => void = (d) => reporter.report(d),
): Promise<Input | undefined> {
  if (format !== undefined) return { codec: await codecOf(format), chunks: source };
  // Loaded before the input is read from: a stream is not waited on while modules load.
  const { detectFromStream, firstContent } = await loadDetection();
  const it = source[Symbol.asyncIterator]();
  // The chunks read to detect are held for the replay: copies, since a file's chunks share one
  // buffer that the next read overwrites (readChunks).
  const copying: AsyncIterator<Uint8Array> = {
    next: async () => {
      const r = await it.next();
      return r.done ? r : { done: false, value: Uint8Array.prototype.slice.call(r.value) };
    },
  };
  const { detection, head } = await detectFromStream(copying);
  if (detection === undefined) {
    const at = firstContent(Buffer.concat(head as Uint8Array[]));
    if (at !== undefined) undetectedTo(undetected(at));
    await it.return?.();
    return undefined;
  }
  async function* replay(): AsyncGenerator<Uint8Array> {
    for (const chunk of head) yield chunk as Uint8Array;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  }
  return { codec: await codecOf(detection.format), chunks: replay() };
}

// An input of no chunks.
async function* nothing(): AsyncGenerator<Uint8Array> {}

// An input whose format cannot be told: an error at its first line with content.
function undetected(at: { line: number; offset: number }): Diagnostic {
  const what = `cannot tell the input's format from its first line (known: ${formatList()}); pass --format`;
  return diagnosticAt('invalid_record', 'error', at.line, at.offset, what, undefined);
}

// Loads what openInput will need (the codec, or detection) before a command is started: Node
// discards the output of a child that exits before its stdout is read, so no module may load
// between the start and the first read.
async function preloadInput(format: Format | undefined): Promise<void> {
  if (format !== undefined) await codecOf(format);
  else await loadDetection();
}

/**
 * A file opened for reading: a regular file (read with `readSync`), a FIFO (its descriptor, read
 * through the event loop), or anything else (a device, read through the thread pool).
 */
type OpenedFile = { kind: 'regular' | 'device'; handle: FileHandle } | { kind: 'fifo'; fd: number };

// Opens a file for reading, or says why it cannot be (exit 66): checked before any output.
// A FIFO is opened without blocking: a blocking open waits for a writer, and a blocking read for
// its data, on a thread-pool thread that Node joins before it exits, so a signal (serve and otel
// end on SIGTERM) left the process waiting for the writer. Opened with O_NONBLOCK, the open
// returns at once and the FIFO is read as a pipe, in the event loop (fifoChunks).
async function openFile(file: string): Promise<OpenedFile> {
  if (isFifo(file)) {
    let fd: number;
    try {
      fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    } catch (error) {
      throw new InputError(`${file}: cannot open: ${(error as Error).message}`);
    }
    // Replaced by something else between the look and the open: read as what it is now.
    if (fstatSync(fd).isFIFO()) return { kind: 'fifo', fd };
    closeSync(fd);
  }
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new InputError(`${file}: cannot open: ${(error as Error).message}`);
  }
  const stat = await handle.stat();
  if (stat.isDirectory()) {
    await handle.close();
    throw directoryError(file);
  }
  return { kind: stat.isFile() ? 'regular' : 'device', handle };
}

// Whether the path names a FIFO (looked at, not opened; a path that cannot be looked at is left
// to the open to explain).
function isFifo(file: string): boolean {
  try {
    return statSync(file).isFIFO();
  } catch {
    return false;
  }
}

// A file --follow follows (parse made sure one was named): one that does not exist yet is waited
// for; a directory, a FIFO or a device is refused at once. Looked at, not opened: opening a FIFO
// waits for its writer, and closing it at once would end the writer with SIGPIPE (a FIFO is read
// to its end without --follow).
function followTarget(file: string): string {
  let kind: Stats | undefined;
  try {
    kind = statSync(file);
  } catch {
    kind = undefined;
  }
  if (kind?.isDirectory()) throw directoryError(file);
  if (kind !== undefined && !kind.isFile())
    throw new InputError(`${file}: --follow follows a regular file; read a FIFO or a device without it`);
  return file;
}

function directoryError(file: string): InputError {
  return new InputError(`${file}: is a directory, not a stream`);
}

// The size of a file's chunks. What one chunk makes (its events, its output) is alive until its
// write: past the young generation's size it is promoted, and old-space garbage waits for a full
// GC. Small chunks keep peak memory down at no measurable cost (docs/performance.md).
const FILE_CHUNK = 16 * 1024;

async function input(file: string | undefined, codecs: CodecCount = 1): Promise<AsyncIterable<Uint8Array>> {
  const large = largeObjectBudget(codecs);
  if (file !== undefined && file !== '-') return collecting(readChunks(await openFile(file)), file, large);
  // Standard input redirected from a file (`< file`) is read like a named file; a pipe or a
  // terminal through Node's stream, which reads a directory (`< dir`) as an empty stream.
  const kind = stdinKind();
  if (kind?.isDirectory()) throw directoryError('<stdin>');
  return collecting(kind?.isFile() ? readFd(0) : process.stdin, '<stdin>', large);
}

function stdinKind(): Stats | undefined {
  try {
    return fstatSync(0);
  } catch {
    return undefined;
  }
}

// The chunks as they come, with a full GC whenever the heap has grown by its budget (growthBudget), or
// its large-object space by `largeBudget` (largeObjectBudget), or COLLECT_EVERY bytes were read.
// A read that fails (EIO: a bad disk, /proc/self/mem) is an input that cannot be read (exit 66),
// not a bug in agentwire.
async function* collecting(
  chunks: AsyncIterable<Uint8Array>,
  name: string,
  largeBudget: number,
): AsyncGenerator<Uint8Array> {
  let read = 0;
  let since = 0;
  let live = getHeapStatistics().used_heap_size;
  let budget = growthBudget(live);
  let liveLarge = largeObjectBytes();
  try {
    for await (const chunk of chunks) {
      read += chunk.length;
      if (read >= HEAP_CHECK_EVERY) {
        since += read;
        read = 0;
        if (
          since >= COLLECT_EVERY ||
          getHeapStatistics().used_heap_size - live > budget ||
          largeObjectBytes() - liveLarge > largeBudget
        ) {
          since = 0;
          fullGc();
          live = getHeapStatistics().used_heap_size;
          budget = growthBudget(live);
          liveLarge = largeObjectBytes();
        }
      }
      yield chunk;
    }
  } catch (error) {
    // Only the source's errors reach here: a consumer that stops returns, it does not throw.
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string' || isAgentwireError(error)) throw error;
    throw new InputError(`${name}: cannot read: ${(error as Error).message}`);
  }
}

// The bytes in V8's old large-object space: strings and arrays past the regular object size that
// survived a scavenge. Only a full GC frees them.
function largeObjectBytes(): number {
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === 'large_object_space') return space.space_used_size;
  }
  return 0;
}

// The file in chunks read into one buffer, reused: each chunk is decoded before the next read.
async function* readChunks(opened: OpenedFile): AsyncGenerator<Uint8Array> {
  if (opened.kind === 'fifo') {
    yield* await fifoChunks(opened.fd);
    return;
  }
  const { handle } = opened;
  try {
    if (opened.kind === 'regular') {
      yield* readFd(handle.fd);
      return;
    }
    // A device may block for as long as it likes: read through the thread pool.
    const buffer = Buffer.allocUnsafeSlow(FILE_CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

// A FIFO opened with O_NONBLOCK, read as Node reads a pipe on standard input: a socket on its
// descriptor, waited on by the event loop (epoll), so nothing blocks a thread and a signal ends
// the process at once. The socket owns the descriptor (it closes it when it ends or is
// destroyed). Its end is the writer's close; a FIFO no writer has opened yet is not at its end
// (Linux reports the hang-up only once a writer has come and gone), so it is waited for.
async function fifoChunks(fd: number): Promise<AsyncIterable<Uint8Array>> {
  const { Socket } = await import('node:net');
  return new Socket({ fd, readable: true, writable: false });
}

// How many bytes of a regular file are read between two turns of the event loop.
const READ_TURN = 1024 * 1024;

// A regular file read with readSync: a read from the page cache takes microseconds, and each
// read through the thread pool cost a hand-off and a wake-up of the event loop, which were a
// third of `decode`'s CPU time (docs/performance.md, "The CLI against jq", round nine). The loop
// still gets a turn every READ_TURN bytes, so a server (`serve FILE`) answers while a file is read.
async function* readFd(fd: number): AsyncGenerator<Uint8Array> {
  const buffer = Buffer.allocUnsafeSlow(FILE_CHUNK);
  let sinceTurn = 0;
  for (;;) {
    const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
    if (bytesRead === 0) return;
    sinceTurn += bytesRead;
    if (sinceTurn >= READ_TURN) {
      sinceTurn = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    yield buffer.subarray(0, bytesRead);
  }
}

// Writes respecting back-pressure, standard error's too (see `say`); a closed pipe (EPIPE) ends
// the process quietly. The diagnostics a chunk gave are written before its output, as they arose.
// Standard output to a file (or /dev/null) is written straight from the string: Node's stream for
// a file makes a Buffer of every piece first, garbage that lives until a full GC. To a pipe or a
// socket through one reused buffer (`pipePieces`); to a terminal through the stream.
function write(text: string): Promise<void> | undefined {
  flushSaid();
  if (stderrDrained !== undefined) return stderrDrained.then(() => write(text));
  if (text === '') return undefined;
  if (outputOf(1) === 'file') {
    writeAll(1, text);
    return undefined;
  }
  // Nothing queued in the stream: the pieces written straight to the pipe come after it.
  if (outputOf(1) === 'pipe' && process.stdout.writableLength === 0) return pipePieces(text);
  if (process.stdout.write(text)) return undefined;
  return new Promise((resolve) => process.stdout.once('drain', resolve));
}

// A text to a pipe (or a socket) a piece at a time through a reused buffer, as a long one to a
// file: each piece written straight to the pipe while it has room; when it is full (EAGAIN, Node
// has made it non-blocking) the piece's rest goes to the stream, and the next piece waits until
// the stream has written it, so a slow reader holds back one piece, never the text. The buffer is
// the pipe's own: standard error's long writes (`writePieces`) may come while the stream has it.
let pipeBuffer: Buffer | undefined;
async function pipePieces(text: string): Promise<void> {
  pipeBuffer ??= Buffer.allocUnsafeSlow(PIECE_BYTES);
  for (const length of encodePieces(text, pipeBuffer)) {
    const done = writeWhileRoom(pipeBuffer, length);
    if (done === length) continue;
    // A failed write is the stream's 'error' (below), which ends the command.
    await new Promise((resolve) => process.stdout.write(pipeBuffer!.subarray(done, length), resolve));
  }
}

// Bytes up to `end` of `bytes` written to standard output until they are all written or the
// pipe is full: how many were.
function writeWhileRoom(bytes: Uint8Array, end: number): number {
  let done = 0;
  try {
    while (done < end) done += writeSync(1, bytes, done, end - done);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') outputFailed(error as NodeJS.ErrnoException);
  }
  return done;
}

// What goes to standard error, gathered and written once per input chunk (by `write`) or at the
// end of the current task: one write per diagnostic was a system call per bad line, most of what
// a stream of bad lines cost. Standard error to a pipe is asynchronous in Node: a reader that
// falls behind (or never reads) would have every diagnostic held in memory, so `write` waits for
// it to drain, as it does for standard output.
let said = '';
let sayScheduled = false;
let stderrDrained: Promise<void> | undefined;
let releaseStderr: (() => void) | undefined;
let stderrGone = false;

// Standard error written out; a promise while its reader is behind (commands that do not `write`).
function stderrReady(): Promise<void> | undefined {
  flushSaid();
  return stderrDrained;
}

function say(text: string): void {
  said += text;
  if (!sayScheduled) {
    sayScheduled = true;
    queueMicrotask(flushSaid);
  }
}

function flushSaid(): void {
  sayScheduled = false;
  if (said === '' || stderrGone) {
    said = '';
    return;
  }
  const text = said;
  said = '';
  if (outputOf(2) === 'file') {
    writeAll(2, text);
    return;
  }
  if (process.stderr.write(text) || stderrDrained !== undefined) return;
  stderrDrained = new Promise((resolve) => {
    releaseStderr = () => {
      stderrDrained = undefined;
      releaseStderr = undefined;
      resolve();
    };
    process.stderr.once('drain', releaseStderr);
  });
}

// What fd 1 or 2 is, looked up once: a file or a character device (/dev/null), written with
// writeSync; a pipe or a socket, written in pieces (`pipePieces`, standard output only); or a
// terminal (or what fstat cannot tell), written through the stream.
type Output = 'file' | 'pipe' | 'stream';
const outputs: Array<Output | undefined> = [];
function outputOf(fd: 1 | 2): Output {
  let output = outputs[fd];
  if (output === undefined) {
    output = 'stream';
    const stream = fd === 1 ? process.stdout : process.stderr;
    try {
      const stat = fstatSync(fd);
      if (stream.isTTY !== true) {
        if (stat.isFile() || stat.isCharacterDevice()) output = 'file';
        else if (stat.isFIFO() || stat.isSocket()) output = 'pipe';
      }
    } catch {
      // Not one fstat can tell: the stream's write.
    }
    outputs[fd] = output;
  }
  return output;
}

// A write to a file that fails: standard error is given up (what it would say is dropped, as
// for a closed pipe), standard output ends the command (exit 74), quietly for EPIPE.
function writeAll(fd: 1 | 2, text: string): void {
  try {
    if (text.length > PIECE_BYTES) {
      writePieces(fd, text);
      return;
    }
    const written = writeSync(fd, text);
    // Written whole: ASCII (the common case) needs no byte count.
    if (written === text.length || written === Buffer.byteLength(text)) return;
    const bytes = Buffer.from(text);
    writeBytes(fd, bytes, written, bytes.length);
  } catch (error) {
    if (fd === 2) {
      stderrGone = true;
      return;
    }
    outputFailed(error as NodeJS.ErrnoException);
  }
}

// A long text (a tool's output) through one reused buffer, not the malloc'd copy `writeSync` of a
// string makes (src/write-pieces.ts).
let pieceBuffer: Buffer | undefined;
function writePieces(fd: 1 | 2, text: string): void {
  pieceBuffer ??= Buffer.allocUnsafeSlow(PIECE_BYTES);
  for (const length of encodePieces(text, pieceBuffer)) writeBytes(fd, pieceBuffer, 0, length);
}

// Bytes `from` to `end` of `bytes`, in as many writes as the file takes them in.
function writeBytes(fd: 1 | 2, bytes: Uint8Array, from: number, end: number): void {
  for (let done = from; done < end; ) done += writeSync(fd, bytes, done, end - done);
}

// Standard output failed: a reader that went away (EPIPE) ends the command quietly with the code
// so far; anything else (no space left, an I/O error) with a message and exit 74.
function outputFailed(error: NodeJS.ErrnoException): never {
  if (error.code === 'EPIPE') {
    flushSaid();
    process.exit(codeSoFar());
  }
  throw new OutputError(`cannot write the output: ${error.message}`);
}

// The events as JSON Lines, one string.
function jsonLines(events: readonly AgentEvent[]): string {
  let text = '';
  for (let i = 0; i < events.length; i++) text += `${eventJson(events[i]!)}\n`;
  return text;
}

// The same without `provenance.hints`: what a format's writer keeps to give its bytes back (for
// most agent formats the whole input line), which no reader of the printed events can use. The
// key is set to undefined for the stringify (which leaves it out) and put back after it, rather
// than each provenance copied: a decoder may still hold a provenance it made (one shared by the
// events of a line, or one it adds to) and must find it as it left it.
function jsonLinesWithoutHints(events: readonly AgentEvent[]): string {
  let text = '';
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const provenance = event.provenance as { hints?: unknown } | undefined;
    const hints = provenance?.hints;
    if (hints === undefined) text += `${eventJson(event)}\n`;
    else {
      provenance!.hints = undefined;
      text += `${eventJson(event)}\n`;
      provenance!.hints = hints;
    }
  }
  return text;
}

interface Parsed {
  values: Record<string, string | boolean | undefined>;
  file: string | undefined;
  command: string[] | undefined;
}

// Options are parsed per command: one that belongs to another command is an error.
function parse(name: CommandName, args: string[]): Parsed {
  const spec = COMMANDS[name];
  // `serve -- command args…`: everything after `--` is the command, untouched by option parsing.
  const dashes = args.indexOf('--');
  const own = dashes === -1 ? args : args.slice(0, dashes);
  const command = dashes === -1 ? undefined : args.slice(dashes + 1);
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [option, o] of Object.entries(spec.options)) {
    options[option] = o.short === undefined ? { type: o.type } : { type: o.type, short: o.short };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: own, allowPositionals: true, strict: true, options });
  } catch (error) {
    throw new UsageError(parseError(name, error as Error & { code?: string }));
  }
  const values = parsed.values as Parsed['values'];
  if (values.help) return { values, file: undefined, command };
  if (parsed.positionals.length > 1)
    throw new UsageError(`${name}: unexpected argument ${JSON.stringify(parsed.positionals[1])}`);
  const file = parsed.positionals[0];
  if (command !== undefined) {
    if (name !== 'serve' && name !== 'otel')
      throw new UsageError(`${name}: only serve and otel run a command (after --)`);
    if (command.length === 0) throw new UsageError(`${name}: -- needs a command to run`);
    if (file !== undefined) throw new UsageError(`${name}: takes a file or a command, not both`);
    if (values.follow) throw new UsageError(`${name}: --follow follows a file, not a command`);
  } else if (values.follow && (file === undefined || file === '-'))
    throw new UsageError(`${name}: --follow needs a file`);
  // What only the browser viewer uses, given without it, would be dropped without a word.
  if (name === 'view' && values.port !== undefined && values.web !== true)
    throw new UsageError('view: --port is for --web');
  return { values, file, command };
}

// Node's parseArgs messages name the option in unbalanced quotes and suggest `--`: say it plainly.
function parseError(name: CommandName, error: Error & { code?: string }): string {
  const option = /'(-{1,2}[^' ]+)/.exec(error.message)?.[1] ?? '';
  const known = Object.keys(COMMANDS[name].options)
    .map((o) => `--${o}`)
    .join(', ');
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const elsewhere = (Object.keys(COMMANDS) as CommandName[]).filter(
        (c) => c !== name && Object.hasOwn(COMMANDS[c].options, option.replace(/^-+/, '')),
      );
      const hint = elsewhere.length > 0 ? ` (an option of ${elsewhere.join(', ')})` : '';
      return `${name}: unknown option ${option}${hint}; ${name} takes ${known}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/argument missing/.test(error.message)) return `${name}: option ${option} needs a value`;
      // `--to -q`: the next word looks like an option, so it is not taken as the value.
      if (/ambiguous/.test(error.message))
        return `${name}: option ${option} needs a value (one that starts with "-" is written ${option}=-…)`;
      return `${name}: option ${option} takes no value`;
    default:
      return `${name}: ${error.message}`;
  }
}

function maxLineBytes(values: Parsed['values']): { maxLineBytes?: number } {
  const raw = values['max-line-bytes'];
  if (raw === undefined) return {};
  const n = wholeNumber(raw);
  if (n === undefined || n === 0) throw new UsageError('--max-line-bytes takes a positive integer');
  return { maxLineBytes: n };
}

// An option's number, in decimal digits only: Number() takes '' as 0 (`--port "$PORT"` with PORT
// unset would be any free port), '0x10' as 16, ' 80' as 80, '1e3' as 1000.
function wholeNumber(raw: string | boolean | undefined): number | undefined {
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

async function main(all: string[]): Promise<number> {
  const [first, ...rest] = all;
  if (first === undefined) {
    say(usage());
    return 64;
  }
  if (first === '--version' || first === '-v') {
    await write(`${version()}\n`);
    return 0;
  }
  if (first === '--help' || first === '-h') {
    await write(usage());
    return 0;
  }
  if (first === 'help') {
    const topic = rest[0];
    if (topic === undefined) await write(usage());
    else if (isCommand(topic)) await write(commandHelp(topic));
    else throw new UsageError(`help: unknown command ${JSON.stringify(topic)}`);
    return 0;
  }
  if (!isCommand(first)) {
    throw new UsageError(
      first.startsWith('-')
        ? `the command comes first (agentwire <${Object.keys(COMMANDS).join('|')}> …)`
        : `unknown command ${JSON.stringify(first)} (commands: ${Object.keys(COMMANDS).join(', ')})`,
    );
  }
  const { values, file, command } = parse(first, rest);
  if (values.help) {
    await write(commandHelp(first));
    return 0;
  }
  const format = inputFormat(values);
  const options = maxLineBytes(values);
  // Messages name the file, or the command whose output is read (never `<stdin>` for it).
  const named = command === undefined ? source(file) : command[0]!;
  const reporter = new Reporter(named, {
    quiet: values.quiet === true,
    json: values.json === true,
    lenient: values.lenient === true,
  });
  codeSoFar = () => reporter.code();
  const onDiagnostic = (d: Diagnostic) => reporter.report(d);
  const ctx: ServeContext = { values, file, command, format, options, reporter, source: named };
  switch (first) {
    case 'decode': {
      const opened = await openInput(format, await input(file), reporter);
      if (opened !== undefined) {
        // One write per input chunk, not per event: the events of a chunk are one string.
        const decoder = opened.codec.createDecoder({ ...options, onDiagnostic });
        const lines = values.hints === true ? jsonLines : jsonLinesWithoutHints;
        for await (const chunk of opened.chunks) await write(lines(decoder.push(chunk)));
        await write(lines(decoder.end()));
      }
      return reporter.code();
    }
    case 'convert':
      return convert(ctx);
    case 'check':
      return check(ctx);
    case 'view':
      return values.web === true ? serve(ctx) : view(ctx);
    case 'serve':
      return serve(ctx);
    case 'otel':
      return otel(ctx);
  }
}

// The chunks a command reads: a command's stdout, a followed file, a file or stdin.
async function streamOf(
  ctx: ServeContext,
  signal: AbortSignal,
): Promise<{ chunks: AsyncIterable<Uint8Array>; child?: ChildProcess }> {
  if (ctx.command !== undefined) {
    await preloadInput(ctx.format);
    const child = await startCommand(ctx.command);
    return { chunks: child.stdout as AsyncIterable<Uint8Array>, child };
  }
  if (ctx.values.follow) {
    const { followFile } = await import('./node/index');
    return { chunks: followFile(followTarget(ctx.file!), { signal }) };
  }
  return { chunks: await input(ctx.file) };
}

// Decodes any stream and exports it as spans over OTLP/HTTP; flushes at the end and on signals.
async function otel(ctx: ServeContext): Promise<number> {
  const { values, reporter } = ctx;
  // Loaded here, not at start: every other command runs without the optional OpenTelemetry API.
  let tracing: Awaited<ReturnType<ServerModules['createOtlpTracing']>>;
  let EventTracer: typeof import('./otel/index').EventTracer;
  const to = typeof values.endpoint === 'string' ? values.endpoint : 'the default OTLP endpoint';
  if (typeof values.endpoint === 'string' && !/^https?:$/.test(urlProtocol(values.endpoint)))
    throw new UsageError(
      `otel: --endpoint takes an http:// or https:// URL, not ${JSON.stringify(values.endpoint)}`,
    );
  // A collector that cannot be reached or refuses the spans: said once as it happens, counted,
  // and the command ends with exit 69 (the spans of those batches are lost).
  const failed = { batches: 0, first: '' };
  const exportFailed = (error: Error): void => {
    if (failed.batches++ > 0) return;
    failed.first = error.message;
    say(
      `agentwire otel: cannot export spans to ${neutralizeControls(to)}: ${neutralizeControls(error.message)}\n`,
    );
  };
  try {
    const { createOtlpTracing } = await import('./node/index');
    ({ EventTracer } = await import('./otel/index'));
    tracing = await createOtlpTracing({
      ...(typeof values.endpoint === 'string' ? { endpoint: values.endpoint } : {}),
      serviceName: str(values['service-name']) ?? 'agentwire',
      onExportError: exportFailed,
    });
  } catch (error) {
    throw new UnavailableError((error as Error).message);
  }
  const controller = new AbortController();
  const shutdown = (): Promise<void> => tracing.shutdown().catch(exportFailed);
  const lost = (): string =>
    `otel: ${failed.batches} batch(es) of spans could not be exported to ${to} (${failed.first}); those spans are lost`;
  // Exit 69 once a batch was lost, whatever the input said.
  const outcome = (): number => {
    if (failed.batches === 0) return reporter.code();
    throw new UnavailableError(lost());
  };
  // The tracer once the input's format is known (spans still open are ended at the stop).
  let tracer: InstanceType<typeof EventTracer> | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      tracer?.end();
      await shutdown();
    })();
    return stopping;
  };
  let child: ChildProcess | undefined;
  const onSignal = () => {
    controller.abort();
    child?.kill('SIGTERM');
    void stop().then(() => {
      let code = reporter.code();
      if (failed.batches > 0) {
        say(`agentwire: ${neutralizeControls(lost())}\n`);
        code = 69;
      }
      flushSaid();
      process.exit(code);
    });
  };
  // Taken before the input is opened and its first line read (to detect its format): a signal
  // while the input says nothing yet (a FIFO with no writer, a command still starting) ends the
  // command by the same rule, not by the signal's default.
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const unhook = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const stream = await streamOf(ctx, controller.signal);
  child = stream.child;
  const opened = await openInput(ctx.format, stream.chunks, reporter);
  if (opened === undefined) {
    await stop();
    unhook();
    return outcome();
  }
  tracer = new EventTracer({
    tracer: tracing.tracer,
    format: opened.codec.format,
    captureContent: values['capture-content'] === true,
  });
  if (values.quiet !== true) {
    say(`agentwire otel: ${ctx.source} (${opened.codec.format}) → ${to}; Ctrl-C flushes and ends\n`);
  }
  const onDiagnostic = (d: Diagnostic) => reporter.report(d);
  const decodeOptions = {
    ...ctx.options,
    onDiagnostic,
    ...(values.follow ? { incompleteLine: 'hold' as const } : {}),
  };
  for await (const event of opened.codec.decode(opened.chunks, decodeOptions)) {
    tracer.push(event);
    const ready = stderrReady();
    if (ready !== undefined) await ready;
  }
  await stop();
  unhook();
  return outcome();
}

// The origin of a URL (`http://localhost:3000`), or '' when the text is not a URL.
function urlOrigin(text: string): string {
  try {
    return new URL(text).origin;
  } catch {
    return '';
  }
}

// The scheme of a URL (`http:`), or '' when the text is not a URL.
function urlProtocol(text: string): string {
  try {
    return new URL(text).protocol;
  } catch {
    return '';
  }
}

async function convert({ values, file, format, options, reporter }: CommandContext): Promise<number> {
  const to = checkFormat(str(values.to), '--to');
  if (to === undefined) throw new UsageError('convert: needs --to FORMAT');
  const framing = str(values.framing);
  const encode: Record<string, unknown> = {};
  if (framing !== undefined) {
    const allowed = FRAMINGS[to];
    if (allowed === undefined) throw new UsageError(`convert: --framing does not apply to --to ${to}`);
    if (!allowed.includes(framing))
      throw new UsageError(`convert: --framing for ${to} is one of ${allowed.join(', ')}`);
    encode.framing = framing;
  }
  const losses = new LossSummary();
  const onDiagnostic = (d: Diagnostic) => {
    // Loss reports are summarised at the end, unless every report is asked for (--json).
    if (d.code === 'loss' && values.json !== true) losses.add(d);
    else reporter.report(d);
  };
  const before = reporter.errors;
  let opened = await openInput(format, await input(file, 2), reporter);
  // An empty input (nothing, or a BOM and white space) is a stream of no events: written as the
  // target writes one (`[]` as a JSON array), as it is with --from.
  if (opened === undefined && reporter.errors === before)
    opened = { codec: await codecOf(to), chunks: nothing() };
  if (opened !== undefined) {
    const from = opened.codec.format;
    const codecs = { source: opened.codec, target: await codecOf(to) };
    const chunks = opened.chunks[Symbol.asyncIterator]();
    const request = { from, to, decode: options, encode, onDiagnostic, batch: true };
    for await (const text of convertChunks(chunks, request, codecs)) {
      await write(text);
    }
  }
  // Field names come from the input (a record's own keys): shown, never executed.
  if (values.quiet !== true) say(neutralizeControls(losses.text(to)));
  return reporter.code();
}

/** One line per lost field, with the event types that lost it. */
class LossSummary {
  private readonly fields = new Map<string, string[]>();

  add(d: Diagnostic): void {
    const [key, type] = splitField(d.field ?? d.message);
    const types = this.fields.get(key);
    if (types === undefined) this.fields.set(key, [type]);
    else if (!types.includes(type)) types.push(type);
  }

  text(to: Format): string {
    if (this.fields.size === 0) return '';
    const lines = [
      `agentwire: ${to} has no place for ${this.fields.size} field(s) of the input (--json lists every report):`,
    ];
    const width = Math.max(...[...this.fields.keys()].map((k) => k.length));
    for (const [key, types] of this.fields) {
      const count = `${types.length} event type${types.length === 1 ? '' : 's'}`;
      const shown = types.length > 4 ? `${types.slice(0, 4).join(', ')}, …` : types.join(', ');
      lines.push(`  ${key.padEnd(width)}  ${count} (${shown})`);
    }
    return `${lines.join('\n')}\n`;
  }
}

const EVENT_TYPES: ReadonlySet<string> = new Set(AGENT_EVENT_TYPES);

// `tool.start.argsSummary` → [`argsSummary`, `tool.start`]; a whole event (`approval.request`)
// is its own line.
function splitField(field: string): [string, string] {
  if (EVENT_TYPES.has(field)) return [`${field} (whole events)`, field];
  const dot = field.lastIndexOf('.');
  const type = field.slice(0, dot);
  return dot > 0 && EVENT_TYPES.has(type) ? [field.slice(dot + 1), type] : [field, field];
}

async function check({ values, file, format, options, reporter }: CommandContext): Promise<number> {
  // What fails the check: errors, and warnings with --strict (so far, should the output close).
  const failing = () => reporter.errors + (values.strict ? reporter.warnings : 0);
  codeSoFar = () => (failing() === 0 ? 0 : 1);
  const named = source(file);
  // Printed as found, one write per batch: memory stays bounded whatever the input's length
  // (a rule may report an earlier line at a later event, so lines are not always in order).
  const print = async (findings: readonly Diagnostic[]): Promise<void> => {
    if (findings.length === 0) return;
    let text = '';
    for (const d of findings) {
      if (d.severity === 'error') reporter.errors++;
      else if (d.severity === 'warning') reporter.warnings++;
      text += values.json ? `${JSON.stringify(d)}\n` : `${describe(d, named)}\n`;
    }
    await write(text);
  };
  // Detection (loaded only when the format is not given) reads the first chunks; an input whose
  // format cannot be told is a finding like any other, printed here.
  let undetectedFinding: Diagnostic | undefined;
  const opened = await openInput(format, await input(file), reporter, (d) => {
    undetectedFinding = d;
  });
  if (undetectedFinding !== undefined) await print([undetectedFinding]);
  // Nothing to detect a format from: the stream is empty, whatever its format would have been.
  else if (opened === undefined) await print([emptyStream(undefined)]);
  if (opened !== undefined) {
    const checker = opened.codec.createChecker(options);
    for await (const chunk of opened.chunks) await print(checker.push(chunk));
    await print(checker.end());
  }
  if (!values.json) {
    const counts = `${reporter.errors} error(s), ${reporter.warnings} warning(s)`;
    say(
      failing() === 0
        ? `ok: ${reporter.errors + reporter.warnings === 0 ? 'no findings' : counts}${!values.strict && reporter.warnings > 0 ? ' (warnings fail with --strict)' : ''}\n`
        : `failed: ${counts}${values.strict ? ' (--strict)' : ''}\n`,
    );
  }
  return codeSoFar();
}

function source(file: string | undefined): string {
  return file === undefined || file === '-' ? '<stdin>' : file;
}

async function view({ values, file, format, options, reporter }: CommandContext): Promise<number> {
  const renderer = new TimelineRenderer({
    color: process.stdout.isTTY === true && !process.env.NO_COLOR,
  });
  const onDiagnostic = (d: Diagnostic) => reporter.report(d);
  if (values.follow) {
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort());
    process.once('SIGTERM', () => controller.abort());
    const { followFile } = await import('./node/index');
    const opened = await openInput(
      format,
      followFile(followTarget(file!), { signal: controller.signal }),
      reporter,
    );
    if (opened === undefined) return reporter.code();
    // Following never ends the input: a line still being written waits for its newline.
    const decoder = opened.codec.createDecoder({
      ...options,
      onDiagnostic,
      incompleteLine: 'hold',
      live: true,
    });
    for await (const chunk of opened.chunks) {
      for (const event of decoder.push(chunk)) await write(renderer.render(event));
    }
    await write(renderer.end());
    return reporter.code();
  }
  const opened = await openInput(format, await input(file), reporter);
  if (opened !== undefined) {
    for await (const event of opened.codec.decode(opened.chunks, { ...options, onDiagnostic })) {
      await write(renderer.render(event));
    }
  }
  await write(renderer.end());
  return reporter.code();
}

/** What a command that reads one input needs: its options, the input, its format, the reporter. */
interface CommandContext {
  values: Parsed['values'];
  file: string | undefined;
  format: Format | undefined;
  options: { maxLineBytes?: number };
  reporter: Reporter;
}

interface ServeContext extends CommandContext {
  command: string[] | undefined;
  source: string;
}

// Starts the command and waits until it runs: one that cannot be started is an InputError.
async function startCommand(command: string[]): Promise<ChildProcess> {
  // node:child_process (and node:crypto, the serve guard's) load with the commands that need them.
  const { spawn } = await import('node:child_process');
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) =>
      reject(new InputError(`${command[0]}: cannot start the command: ${error.message}`)),
    );
  });
  return child;
}

// Reads any stream (a file, stdin, or a command's stdout), persists each event in the session
// log (and the --log file), then serves it as nativeharness SSE until SIGINT/SIGTERM.
async function serve(ctx: ServeContext): Promise<number> {
  const { values, reporter, source } = ctx;
  const port = values.port === undefined ? 4700 : wholeNumber(values.port);
  if (port === undefined || port > 65535) throw new UsageError('serve: --port takes 0 to 65535');
  const workspace = str(values.workspace) ?? 'local';
  const session = str(values.session) ?? 'live';
  // An empty id makes a URL (`/workspaces//sessions/…`) that no route answers: served, never read.
  if (workspace === '' || session === '')
    throw new UsageError(`serve: --${workspace === '' ? 'workspace' : 'session'} takes a non-empty id`);
  // Refused before anything else: listening beyond loopback without a token.
  const lib = await serverModules();
  const web = webFront({ values, port, workspace, session, page: values.as === undefined, lib });
  const readOnly = values['read-only'] === true;
  if (readOnly && (ctx.file !== undefined || ctx.command !== undefined))
    throw new UsageError('serve: --read-only serves what Redis has: no file or command');
  // --as: the same input served in a UI protocol (persisted as its JSON Lines), not as envelopes.
  const as = str(values.as);
  if (as !== undefined && as !== 'ag-ui' && as !== 'ai-sdk')
    throw new UsageError('serve: --as takes ag-ui or ai-sdk');
  if (as !== undefined && (values.redis !== undefined || readOnly))
    throw new UsageError('serve: --as serves from memory (not with --redis)');
  const { log, ready, quit, persistLine } = openSessionLog(values, (d) => reporter.report(d), lib);
  const ui =
    as === undefined
      ? undefined
      : new lib.ProtocolLog({
          codec: await codecOf(as),
          onDiagnostic: (d) => reporter.report(d),
          ...(persistLine === undefined ? {} : { persist: persistLine }),
        });
  // The input is opened (or the command started) before anything is served; `view --web --follow`
  // follows its file as `view --follow` does.
  let child: ChildProcess | undefined;
  let chunks: AsyncIterable<Uint8Array> | undefined;
  // (Never aborted: serve's end exits the process, which ends a follow too.)
  if (!readOnly) ({ chunks, child } = await streamOf(ctx, new AbortController().signal));
  const exited =
    child === undefined
      ? undefined
      : new Promise<string>((resolve) =>
          child.once('exit', (code, signal) =>
            resolve(signal === null ? `exit status ${code}` : `signal ${signal}`),
          ),
        );

  const onDiagnostic = (d: Diagnostic) => reporter.report(d);
  try {
    await ready();
  } catch (error) {
    child?.kill();
    throw new ListenError(
      `serve: cannot reach Redis at ${withoutPassword(str(values.redis) ?? '')}: ${(error as Error).message}`,
    );
  }
  const handler =
    ui !== undefined
      ? lib.createProtocolHandler({ log: ui, path: /\/stream$/ })
      : lib.createSseHandler({
          log: servedFromStart(log, workspace, session),
          onError: (error) => say(`agentwire: ${error.message}\n`),
        });
  // The session exists from the start, so a reader (the viewer) that comes before the first
  // event waits for it instead of getting 404 (a Redis log: servedFromStart).
  if (ui === undefined && str(values.redis) === undefined) await log.append(workspace, session, []);
  let detected: string | null = ctx.format ?? null;
  const server = lib.createServer((req, res) => {
    if (web.guard(req, res, detected)) return;
    handler(req, res).then(
      (handled) => {
        if (!handled) {
          res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
          res.end(`not found; the stream is at /workspaces/${workspace}/sessions/${session}/stream\n`);
        }
      },
      () => res.destroy(),
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, web.host, () => resolve());
    });
  } catch (error) {
    child?.kill();
    await quit();
    throw new ListenError(`serve: cannot listen on ${web.host}:${port}: ${(error as Error).message}`);
  }
  const address = server.address();
  const actual = typeof address === 'object' && address !== null ? address.port : port;
  web.listening(actual);
  const origin = `http://${web.host.includes(':') ? `[${web.host}]` : web.host}:${actual}`;
  const base = `${origin}/workspaces/${encodeURIComponent(workspace)}/sessions/${encodeURIComponent(session)}`;
  say(`agentwire: serving ${base}/stream${ui === undefined ? ` (and ${base}/events)` : ` as ${as}`}\n`);
  // The viewer reads agentwire's own envelopes; a stream served --as a UI protocol is for that UI.
  if (ui === undefined) {
    say(`agentwire: viewer at ${origin}/${web.token === undefined ? '' : '?token=…'}\n`);
    if (web.token !== undefined) say('agentwire: open the viewer once with ?token=<your token>\n');
  }

  let stopping = false;
  const stop = new Promise<void>((resolve) => {
    const end = () => {
      stopping = true;
      resolve();
    };
    process.once('SIGINT', end);
    process.once('SIGTERM', end);
  });
  // --redis: Redis away for longer than the log's retry window does not end the feed (the
  // session would stay open for ever, the rest of the input unread). A failed append's entries
  // stay queued in the log's writer, so it is tried again with nothing new, window after
  // window, until Redis takes them or serve stops; meanwhile nothing more is read from the
  // input (the agent waits on its output). The writer is primed first (an empty append reads
  // the stored seq), so every later append's events are queued before Redis is asked.
  const stored = async <T>(first: () => Promise<T>, again: () => Promise<T>): Promise<T> => {
    for (let attempt = first; ; attempt = again) {
      try {
        return await attempt();
      } catch (error) {
        if (stopping || !(error instanceof lib.RedisLogError) || error.code !== 'unavailable') throw error;
        say(`agentwire: redis: ${error.message}; the input waits until Redis is back\n`);
      }
    }
  };
  const feed = (async () => {
    if (chunks === undefined) return;
    const opened = await openInput(ctx.format, chunks, reporter);
    if (opened !== undefined) {
      detected = opened.codec.format;
      // A followed file never ends: a line still being written waits for its newline.
      const following = ctx.values.follow ? { incompleteLine: 'hold' as const, live: true } : {};
      const decoder = opened.codec.createDecoder({ ...ctx.options, onDiagnostic, ...following });
      const empty = () => log.append(workspace, session, []);
      if (ui === undefined) await stored(empty, empty);
      const append = (events: AgentEvent[]) =>
        ui !== undefined ? ui.append(events) : stored(() => log.append(workspace, session, events), empty);
      for await (const chunk of opened.chunks) {
        await append(decoder.push(chunk));
        await stderrReady();
      }
      await append(decoder.end());
    }
    const close = () => log.close(workspace, session);
    await (ui !== undefined ? ui.close() : stored(close, close));
    const how = exited === undefined ? 'input ended' : `input ended: ${source} exited (${await exited})`;
    say(`agentwire: ${how}; the session is complete; still serving ${base}/stream (Ctrl-C to stop)\n`);
  })();
  feed.catch((error: unknown) => {
    reporter.errors++;
    const message = error instanceof Error ? error.message : String(error);
    say(`agentwire: ${error instanceof LogFileError ? '' : `${source}: `}${message}\n`);
  });
  await stop;
  child?.kill();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await quit();
  // The input may still be open (a pipe whose writer goes on, a command that ignores SIGTERM),
  // and a read of it keeps the process alive: the signal ends serve now, not then. (A FIFO named
  // as the file is read in the event loop, never by a blocked thread-pool thread that Node
  // would join before exiting: openFile.)
  flushSaid();
  process.exit(reporter.code());
}

// A Redis URL as it may be printed: its password (`redis://:secret@host`) would end up in logs.
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.href;
  } catch {
    // Not a URL: said as given only when it cannot hold a password at all.
    return url.includes('@') ? '(the --redis URL)' : url;
  }
}

// The session serve serves exists from the start, also on Redis, where the appender's first
// event makes the stream: a reader that comes before it (the viewer opened at once, a
// --read-only server's clients before the agent's first output) waits for it, as in memory,
// instead of a 404 that EventSource and connect() do not retry. Other sessions answer as stored.
// It has no events yet: a cursor above 0 is not of its stream (409, as for any log).
function servedFromStart(log: SessionLog, workspace: string, session: string): SessionLog {
  return {
    append: (w, s, events) => log.append(w, s, events),
    close: (w, s) => log.close(w, s),
    follow: (w, s, after, follower) => log.follow(w, s, after, follower),
    read: async (w, s, after) =>
      (await log.read(w, s, after)) ??
      (w === workspace && s === session ? { entries: [], closed: false, last: after, head: 0 } : undefined),
  };
}

// The browser side of serve: the access gate (Host, token, CORS) in front of every route, then
// the viewer page. `guard(req, res, format)` is true when it answered the request.
/** What the access guard and the viewer page need from `serve`'s options. */
interface WebFrontContext {
  values: Parsed['values'];
  port: number;
  workspace: string;
  session: string;
  /** Serve the viewer page at `/` (not when the stream is a UI protocol). */
  page: boolean;
  lib: ServerModules;
}

function webFront({ values, port, workspace, session, page, lib }: WebFrontContext) {
  const host = str(values.host) ?? '127.0.0.1';
  const given = str(values.token) ?? process.env[TOKEN_ENV];
  const token = given === undefined || given === '' ? undefined : given;
  const cors = str(values.cors);
  // A browser's Origin is compared as given: '*', a path or a trailing slash would never match,
  // and every cross-origin request would be refused with nothing said.
  if (cors !== undefined && urlOrigin(cors) !== cors)
    throw new UsageError(
      `serve: --cors takes one origin, scheme://host[:port] (no path, no "*"), not ${JSON.stringify(cors)}`,
    );
  const stream = `/workspaces/${encodeURIComponent(workspace)}/sessions/${encodeURIComponent(session)}/stream`;
  const make = (actual: number) => {
    try {
      return lib.createAccessGuard({
        port: actual,
        host,
        ...(token === undefined ? {} : { token }),
        ...(cors === undefined ? {} : { cors }),
      });
    } catch (error) {
      throw new UsageError(`serve: ${(error as Error).message}`);
    }
  };
  // Refused before listening: beyond loopback without a token.
  make(port);
  let access: AccessGuard | undefined;
  let format: string | null = null;
  const viewer = lib.createViewerHandler({ stream, info: () => ({ format, workspace, session }) });
  return {
    host,
    token,
    listening(actual: number) {
      access = make(actual);
    },
    guard(req: IncomingMessage, res: ServerResponse, detected: string | null): boolean {
      format = detected;
      if (access === undefined || access.check(req, res) === 'answered') return true;
      return page && viewer(req, res);
    },
  };
}

// The session log serve uses: in memory (and the --log file), or on Redis Streams (--redis).
function openSessionLog(
  values: Parsed['values'],
  onDiagnostic: (d: Diagnostic) => void,
  lib: ServerModules,
): {
  log: SessionLog;
  ready: () => Promise<void>;
  quit: () => Promise<void>;
  /** Appends a line to `--log FILE` (checked once here): the session log's, or `--as`'s. */
  persistLine?: (json: string) => Promise<void>;
} {
  const raw = str(values.retain);
  const retain = raw === undefined ? undefined : wholeNumber(raw);
  if (raw !== undefined && (retain === undefined || retain === 0))
    throw new UsageError('serve: --retain takes a positive integer');
  const url = str(values.redis);
  const logFile = str(values.log);
  if (url !== undefined) {
    if (logFile !== undefined) throw new UsageError('serve: --log and --redis: Redis is the log');
    const log = new lib.RedisSessionLog({
      url,
      onDiagnostic,
      extensions: true,
      onError: (error) => say(`agentwire: redis: ${error.message}\n`),
      ...(retain === undefined ? {} : { maxLen: retain }),
    });
    return { log, ready: () => log.connect(), quit: () => log.quit() };
  }
  if (values['read-only'] === true) throw new UsageError('serve: --read-only needs --redis');
  const persistLine = logFile === undefined ? undefined : logWriter(logFile);
  const log = new lib.NhSessionLog({
    onDiagnostic,
    extensions: true,
    ...(retain === undefined ? {} : { retain }),
    ...(persistLine === undefined
      ? {}
      : { persist: (_w: string, _s: string, json: string) => persistLine(json) }),
  });
  return {
    log,
    ready: async () => {},
    quit: async () => {},
    ...(persistLine === undefined ? {} : { persistLine }),
  };
}

/** `serve --log FILE` could not append (exit 74 at start; later, the feed stops with it). */
class LogFileError extends Error {}

// Appends each persisted line to `serve --log FILE`. The file is opened for appending once first,
// so a path that cannot be written (no such directory, no permission, a directory) ends the
// command before anything is served, not at its first event; a later failure (no space left)
// names the file.
function logWriter(file: string): (json: string) => Promise<void> {
  try {
    appendFileSync(file, '');
  } catch (error) {
    throw new OutputError(`serve: --log ${file}: cannot be written: ${(error as Error).message}`);
  }
  return (json) =>
    appendFile(file, `${json}\n`).catch((error: Error) => {
      throw new LogFileError(`serve: --log ${file}: ${error.message}`);
    });
}

// The exit code should the reader of standard output go away (EPIPE): what the command would
// return for the diagnostics seen so far (set once its reporter exists).
let codeSoFar: () => number = () => 0;

// Standard output failing asynchronously (a pipe or a terminal): the same as a write to a file
// that fails, told by the same words; quietly for EPIPE, but never 0 after an error diagnostic
// (`check … | head -1` of a failing stream).
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  try {
    outputFailed(error);
  } catch (failed) {
    process.exitCode = failure(failed);
  }
  flushSaid();
  process.exit();
});

// Standard error closed by its reader: the command goes on (its output and exit code still
// say what it found), what it would say is dropped, and nothing waits for a drain that will
// not come.
process.stderr.on('error', () => {
  stderrGone = true;
  said = '';
  releaseStderr?.();
});

// What ended a command: said on standard error, and its exit code.
function failure(error: unknown): number {
  // Messages may quote input (a file name, a strict-mode diagnostic): shown, never executed.
  const message = neutralizeControls(error instanceof Error ? error.message : String(error));
  if (error instanceof UsageError) {
    say(`agentwire: ${message} (see agentwire --help)\n`);
    return 64;
  }
  if (error instanceof InputError) {
    say(`agentwire: ${message}\n`);
    return 66;
  }
  if (error instanceof OutputError) {
    say(`agentwire: ${message}\n`);
    return 74;
  }
  if (error instanceof ListenError) {
    say(`agentwire: ${message}\n`);
    return 69;
  }
  if (isAgentwireError(error)) {
    // A value the target format cannot hold (a writer's `unencodable`), or strict mode.
    say(`agentwire: ${error.diagnostic.severity} ${error.code}: ${message}\n`);
    return 1;
  }
  say(`agentwire: internal error: ${message}\n`);
  return 70;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = failure(error);
  },
);
