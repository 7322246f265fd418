import { type ChildProcess, spawn } from 'node:child_process';
import { createReadStream, readFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import type { Codec } from './codec';
import { convertStream, detectFromStream } from './convert';
import { detectFormat } from './detect';
import type { Diagnostic, Format } from './diagnostics';
import { codecFor, codecs } from './formats';
import { followFile } from './node/follow';
import { createSseHandler, NhSessionLog } from './node/sse-server';
import { TimelineRenderer } from './view';

// The agentwire command line. Exit codes: 0 ok, 1 findings (check) or failure, 64 usage error.

const USAGE = `agentwire — read, check and convert AI agent event streams

Usage:
  agentwire decode [--format F] [file|-]   print the canonical events, one JSON object per line
  agentwire convert [--from F] --to F [file|-]
                                           convert between formats, streaming (flushed per event)
  agentwire view   [--format F] [--follow] [file|-]
                                           a human timeline of any stream (--follow: like tail -f)
  agentwire serve  [--port N] [--format F] [--workspace W] [--session S] [--log FILE]
                   [file|-|-- command args…]
                                           serve any stream as nativeharness SSE on 127.0.0.1 with
                                           Last-Event-ID resume (persist, then emit)
  agentwire check  [--format F] [--json] [file|-]
                                           validate a stream (schema, ordering, bounds);
                                           exit 0 clean, 1 violations
  agentwire --version | --help

Formats: ${Object.keys(codecs).join(', ')} (default: detected from the first line)
Options:
  --format F          the input format
  --max-line-bytes N  longest line accepted (default 1048576; codex, gemini, opencode, cursor: 16777216)
  --json              (check) machine-readable findings, one JSON object per line
`;

class UsageError extends Error {}

function version(): string {
  try {
    const url = new URL('../package.json', import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function checkFormat(name: string | undefined): Format | undefined {
  if (name === undefined) return undefined;
  if (codecFor(name) === undefined) {
    throw new UsageError(`unknown format ${JSON.stringify(name)} (known: ${Object.keys(codecs).join(', ')})`);
  }
  return name as Format;
}

interface Input {
  codec: Codec;
  chunks: AsyncIterable<Uint8Array>;
}

// The input's format: as given, else detected from its first line (the chunks read are replayed).
async function openInput(format: Format | undefined, source: AsyncIterable<Uint8Array>): Promise<Input> {
  if (format !== undefined) return { codec: codecFor(format)!, chunks: source };
  const it = source[Symbol.asyncIterator]();
  const { detection, head } = await detectFromStream(it);
  const codec = codecFor(detection?.format ?? 'hep')!;
  async function* replay(): AsyncGenerator<Uint8Array> {
    for (const chunk of head) yield chunk as Uint8Array;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  }
  return { codec, chunks: replay() };
}

function input(file: string | undefined): AsyncIterable<Uint8Array> {
  return file === undefined || file === '-' ? process.stdin : createReadStream(file);
}

function describe(d: Diagnostic, file: string | undefined): string {
  const where = d.line === undefined ? '' : `${d.line}:${d.offset ?? 0}:`;
  return `${file ?? '<stdin>'}:${where} ${d.severity} ${d.code}: ${d.message}`;
}

// Writes respecting back-pressure; a closed pipe (EPIPE) ends the process quietly.
function write(text: string): Promise<void> | undefined {
  if (text === '' || process.stdout.write(text)) return undefined;
  return new Promise((resolve) => process.stdout.once('drain', resolve));
}

async function main(all: string[]): Promise<number> {
  // `serve -- command args…`: everything after `--` is the command, untouched by option parsing.
  const dashes = all.indexOf('--');
  const argv = dashes === -1 ? all : all.slice(0, dashes);
  const command_ = dashes === -1 ? undefined : all.slice(dashes + 1);
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      'max-line-bytes': { type: 'string' },
      json: { type: 'boolean' },
      follow: { type: 'boolean', short: 'f' },
      port: { type: 'string' },
      workspace: { type: 'string' },
      session: { type: 'string' },
      log: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.version) {
    await write(`${version()}\n`);
    return 0;
  }
  const [command, file, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    await write(USAGE);
    return command === undefined && !values.help ? 64 : 0;
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  if (command_ !== undefined && command !== 'serve')
    throw new UsageError('only serve runs a command (after --)');
  if (command_ !== undefined && command_.length === 0)
    throw new UsageError('serve -- needs a command to run');
  if (command_ !== undefined && file !== undefined)
    throw new UsageError('serve takes a file or a command, not both');
  const format = checkFormat(values.format ?? values.from);
  const maxLineBytes = values['max-line-bytes'] === undefined ? undefined : Number(values['max-line-bytes']);
  if (maxLineBytes !== undefined && !(Number.isSafeInteger(maxLineBytes) && maxLineBytes > 0)) {
    throw new UsageError('--max-line-bytes takes a positive integer');
  }
  const options = maxLineBytes === undefined ? {} : { maxLineBytes };
  switch (command) {
    case 'decode': {
      const onDiagnostic = (d: Diagnostic) => process.stderr.write(`${describe(d, file)}\n`);
      const { codec, chunks } = await openInput(format, input(file));
      for await (const event of codec.decode(chunks, { ...options, onDiagnostic })) {
        await write(`${JSON.stringify(event)}\n`);
      }
      return 0;
    }
    case 'convert': {
      const to = checkFormat(values.to);
      if (to === undefined) throw new UsageError('convert needs --to FORMAT');
      const onDiagnostic = (d: Diagnostic) => process.stderr.write(`${describe(d, file)}\n`);
      const { codec, chunks } = await openInput(format, input(file));
      for await (const text of convertStream(chunks, {
        from: codec.format,
        to,
        decode: options,
        onDiagnostic,
      })) {
        await write(text);
      }
      return 0;
    }
    case 'check': {
      const parts: Uint8Array[] = [];
      for await (const c of input(file)) parts.push(c);
      const bytes = Buffer.concat(parts);
      const codec = codecFor(format ?? detectFormat(bytes)?.format ?? 'hep')!;
      const findings: Diagnostic[] =
        'check' in codec && typeof codec.check === 'function'
          ? (codec.check as (i: Uint8Array, o: object) => Diagnostic[])(bytes, options)
          : codec.parse(bytes, options).diagnostics;
      for (const d of findings)
        await write(values.json ? `${JSON.stringify(d)}\n` : `${describe(d, file)}\n`);
      const failing = findings.filter((d) => d.severity !== 'info').length;
      if (!values.json)
        process.stderr.write(failing === 0 ? 'ok: no violations\n' : `${failing} violation(s)\n`);
      return failing === 0 ? 0 : 1;
    }
    case 'view': {
      const renderer = new TimelineRenderer({
        color: process.stdout.isTTY === true && !process.env.NO_COLOR,
      });
      const onDiagnostic = (d: Diagnostic) => process.stderr.write(`${describe(d, file)}\n`);
      if (values.follow) {
        if (file === undefined || file === '-') throw new UsageError('--follow needs a file');
        const controller = new AbortController();
        process.once('SIGINT', () => controller.abort());
        process.once('SIGTERM', () => controller.abort());
        const { codec, chunks } = await openInput(format, followFile(file, { signal: controller.signal }));
        // Following never ends the input: a line still being written waits for its newline.
        const decoder = codec.createDecoder({ ...options, onDiagnostic, incompleteLine: 'hold' });
        for await (const chunk of chunks) {
          for (const event of decoder.push(chunk)) await write(renderer.render(event));
        }
        await write(renderer.end());
        return 0;
      }
      const { codec, chunks } = await openInput(format, input(file));
      for await (const event of codec.decode(chunks, { ...options, onDiagnostic })) {
        await write(renderer.render(event));
      }
      await write(renderer.end());
      return 0;
    }
    case 'serve':
      return serve(values, file, command_, format, options);
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

interface ServeValues {
  port?: string | undefined;
  workspace?: string | undefined;
  session?: string | undefined;
  log?: string | undefined;
}

// Reads any stream (a file, stdin, or a command's stdout), persists each event in the session
// log (and the --log file), then serves it as nativeharness SSE until SIGINT/SIGTERM.
async function serve(
  values: ServeValues,
  file: string | undefined,
  command: string[] | undefined,
  format: Format | undefined,
  options: { maxLineBytes?: number },
): Promise<number> {
  const port = values.port === undefined ? 4700 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port takes 0 to 65535');
  const workspace = values.workspace ?? 'local';
  const session = values.session ?? 'live';
  const onDiagnostic = (d: Diagnostic) => process.stderr.write(`${describe(d, file)}\n`);
  const logFile = values.log;
  const log = new NhSessionLog({
    onDiagnostic,
    ...(logFile === undefined
      ? {}
      : { persist: (_w: string, _s: string, json: string) => appendFile(logFile, `${json}\n`) }),
  });
  const handler = createSseHandler({ log });
  const server = createServer((req, res) => {
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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address !== null ? address.port : port;
  const base = `http://127.0.0.1:${actual}/workspaces/${encodeURIComponent(workspace)}/sessions/${encodeURIComponent(session)}`;
  process.stderr.write(`agentwire: serving ${base}/stream (and ${base}/events)\n`);

  let child: ChildProcess | undefined;
  let source: AsyncIterable<Uint8Array>;
  if (command !== undefined) {
    child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('error', (error) => process.stderr.write(`agentwire: ${command[0]}: ${error.message}\n`));
    source = child.stdout as AsyncIterable<Uint8Array>;
  } else source = input(file);

  const stop = new Promise<void>((resolve) => {
    const end = () => resolve();
    process.once('SIGINT', end);
    process.once('SIGTERM', end);
  });
  const feed = (async () => {
    const { codec, chunks } = await openInput(format, source);
    const decoder = codec.createDecoder({ ...options, onDiagnostic });
    for await (const chunk of chunks) await log.append(workspace, session, decoder.push(chunk));
    await log.append(workspace, session, decoder.end());
    await log.close(workspace, session);
    process.stderr.write(`agentwire: input ended; still serving ${base}/stream (Ctrl-C to stop)\n`);
  })();
  feed.catch((error: unknown) => {
    process.stderr.write(`agentwire: ${error instanceof Error ? error.message : String(error)}\n`);
  });
  await stop;
  child?.kill();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return 0;
}

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`agentwire: ${(error as Error).message} (see agentwire --help)\n`);
      process.exitCode = 64;
    } else if ((error as { code?: string }).code === 'ENOENT') {
      process.stderr.write(`agentwire: ${(error as Error).message}\n`);
      process.exitCode = 66;
    } else {
      process.stderr.write(`agentwire: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
