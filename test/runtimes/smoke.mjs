// One script, run unchanged by Node, Bun and Deno (test/runtimes/runtimes.test.ts): it drives
// the built browser entries over every shipped fixture and a set of hostile inputs, and prints
// one line per case: `<key> <sha-256 of what the case produced>`. The test compares each
// runtime's lines with Node's. With `--show <key>` it prints that case's whole result instead, so
// a mismatch can be shown as a diff. Only `node:` modules every runtime implements are used here,
// and only to read the job file and write the output: the library code under test is the
// browser build (`dist/all.js` and the format entries), which imports no Node built-in.
import { readFileSync } from 'node:fs';
import process from 'node:process';

const [jobPath, ...rest] = process.argv.slice(2);
const show = rest[0] === '--show' ? rest[1] : undefined;
const job = JSON.parse(readFileSync(jobPath, 'utf8'));
const lib = await import(new URL('../../dist/all.js', import.meta.url).href);
const { codecs, convertWith, detectFormat, FORMATS } = lib;

const utf8 = new TextEncoder();
const fromBase64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

// The JSON parser's own words are the engine's (V8 and JavaScriptCore say it differently): the
// diagnostic must still be `not valid JSON (<the parser's reason>)`, at the same line and offset.
function said(d) {
  const parser = /^(.*)not valid JSON \(.+\)$/.exec(d.message);
  const message = d.code === 'invalid_json' && parser !== null ? `${parser[1]}not valid JSON (…)` : d.message;
  return { ...d, message };
}

function deterministic() {
  let n = 0;
  return { clock: () => 1767225600000, idSource: () => `id-${++n}` };
}

// Irregular cuts: every chunk boundary lands somewhere else in a UTF-8 sequence, a CRLF, an SSE
// field, so each runtime's TextDecoder (stream mode) and the splitters are tried at every kind of
// place.
function chunks(bytes) {
  const out = [];
  let at = 0;
  let i = 0;
  while (at < bytes.length) {
    const n = 1 + ((i * 7919) % 97);
    out.push(bytes.subarray(at, at + n));
    at += n;
    i++;
  }
  return out;
}

async function streamed(codec, bytes, batch) {
  const source = new ReadableStream({
    start(controller) {
      for (const c of chunks(bytes)) controller.enqueue(c);
      controller.close();
    },
  });
  const diagnostics = [];
  const options = { onDiagnostic: (d) => diagnostics.push(said(d)) };
  const stream = batch ? codec.batchDecoderStream(options) : codec.decoderStream(options);
  const events = [];
  const reader = source.pipeThrough(stream).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (batch) events.push(...value);
    else events.push(value);
  }
  return { events, diagnostics };
}

function pushed(codec, bytes) {
  const diagnostics = [];
  const decoder = codec.createDecoder({ onDiagnostic: (d) => diagnostics.push(said(d)) });
  const events = [];
  for (const c of chunks(bytes)) events.push(...decoder.push(c));
  events.push(...decoder.end());
  return { events, diagnostics };
}

async function encoded(codec, events) {
  let text = '';
  for await (const piece of codec.encode(events)) text += piece;
  return text;
}

// The cases, by key. Each returns a JSON-able value.
const cases = new Map();

for (const fx of job.fixtures) {
  const bytes = fromBase64(fx.bytes);
  const codec = codecs[fx.format];
  const key = `${fx.format}/${fx.file}`;
  cases.set(`${key} detect`, () => detectFormat(bytes) ?? null);
  cases.set(`${key} parse`, () => {
    const r = codec.parse(bytes);
    return { events: r.events, diagnostics: r.diagnostics.map(said) };
  });
  cases.set(`${key} push`, () => pushed(codec, bytes));
  cases.set(`${key} decoderStream`, () => streamed(codec, bytes, false));
  cases.set(`${key} batchDecoderStream`, () => streamed(codec, bytes, true));
  cases.set(`${key} stringify`, () => codec.stringify(codec.parse(bytes).events));
  cases.set(`${key} encode`, () => encoded(codec, codec.parse(bytes).events));
  for (const to of FORMATS) {
    if (to === fx.format || codecs[to] === undefined) continue;
    cases.set(`${key} → ${to}`, () => {
      const r = convertWith(bytes, { from: codec, to: codecs[to], ...deterministic() });
      return { output: r.output, diagnostics: r.diagnostics.map(said) };
    });
  }
}

// Hostile input, through every codec: bytes no runtime may crash on or read differently.
const hostile = {
  'invalid UTF-8': Uint8Array.of(0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d, 0x0a),
  'a cut-off UTF-8 sequence at the end': Uint8Array.of(0x7b, 0x7d, 0x0a, 0xe2, 0x82),
  'a BOM, CRLF and a blank line': utf8.encode('\ufeff{"type":"x"}\r\n\r\n{"type":"y"}\r\n'),
  'NUL bytes and control characters': utf8.encode('{"a":"\u0000"}\n\u0000\u0001\n'),
  'lone surrogates escaped': utf8.encode('{"type":"\\ud800","text":"\\udc00x"}\n'),
  '100 000 unclosed brackets': utf8.encode(`${'['.repeat(100_000)}\n{"type":"x"}\n`),
  '100 000 nested objects': utf8.encode(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}\n`),
  'numbers beyond a double': utf8.encode('{"n":123456789012345678901234567890,"m":1e400}\n'),
  'not JSON at all': utf8.encode('hello\nworld\n'),
  'SSE without a blank line at the end': utf8.encode('id: 1\ndata: {"type":"x"}'),
  'a line longer than the bound': utf8.encode(`{"t":"${'x'.repeat(70_000)}"}\n{"type":"x"}\n`),
};
for (const [name, bytes] of Object.entries(hostile)) {
  for (const format of FORMATS) {
    const codec = codecs[format];
    if (codec === undefined) continue;
    const options = name === 'a line longer than the bound' ? { maxLineBytes: 65_536 } : {};
    cases.set(`hostile ${name} ${format} parse`, () => {
      const r = codec.parse(bytes, options);
      return { events: r.events, diagnostics: r.diagnostics.map(said) };
    });
    cases.set(`hostile ${name} ${format} push`, () => pushed(codec, bytes));
  }
  cases.set(`hostile ${name} detect`, () => detectFormat(bytes) ?? null);
}

async function sha256(text) {
  const digest = await crypto.subtle.digest('SHA-256', utf8.encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

if (show !== undefined) {
  const run = cases.get(show);
  if (run === undefined) throw new Error(`no case ${show}`);
  process.stdout.write(`${JSON.stringify(await run(), null, 1)}\n`);
} else {
  const lines = [];
  for (const [key, run] of cases) {
    try {
      lines.push(`${key}\t${await sha256(JSON.stringify(await run()))}`);
    } catch (error) {
      // A throw is a result too (and a bug: no input may make a decoder throw): say which.
      lines.push(`${key}\tthrew ${error?.name}: ${error?.message}`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
