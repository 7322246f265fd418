import { describe, expect, test } from 'vitest';
import type { Codec } from '../../src/codec';
import { agui } from '../../src/formats/ag-ui/index';
import { hep } from '../../src/formats/hep/index';
import { highbar } from '../../src/formats/highbar/index';
import { nativeharness } from '../../src/formats/nativeharness/index';
import { LineSplitter } from '../../src/framing/lines';
import { SseReader } from '../../src/framing/sse';
import { expectLinear, measureLinearity, RATIO, reportLinearity } from './linear';

// Time stays linear in input size, for the inputs most likely to make a parser quadratic: each
// case times an input of size n and of size 8n and requires the ratio to stay far from the 64 of a
// quadratic cost (the harness and why it is built as it is: linear.ts). The last test proves the
// harness can fail: a deliberately quadratic call is rejected.

// biome-ignore lint/suspicious/noExplicitAny: the codecs differ only in option types
function decodeAll(codec: Codec<any, any>, chunks: Array<string | Uint8Array>, options: object = {}): void {
  const decoder = codec.createDecoder({ maxLineBytes: 64 * 1024 * 1024, onDiagnostic: () => {}, ...options });
  for (const c of chunks) decoder.push(c);
  decoder.end();
}

const H = '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n';
const enc = new TextEncoder();

function bytes(text: string): Uint8Array {
  return enc.encode(text);
}

function byteChunks(b: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
}

describe('fuzz: time is linear in input size', () => {
  test('line splitter: one long line fed in 7-byte chunks (held, grown, then delivered)', () => {
    expectLinear((n) => {
      const chunks = byteChunks(bytes(`${'x'.repeat(n)}\n`), 7);
      return () => {
        const s = new LineSplitter(
          { line: () => {}, diagnostic: () => {} },
          { maxLineBytes: 64 * 1024 * 1024 },
        );
        for (const c of chunks) s.push(c);
        s.end();
      };
    }, 50_000);
  });

  test('line splitter (SSE): a stream of lone CRs and CRLFs split between chunks', () => {
    expectLinear((n) => {
      const chunks = byteChunks(bytes('a\r\r\nb\r'.repeat(n)), 3);
      return () => {
        const s = new LineSplitter({ line: () => {}, diagnostic: () => {} }, { mode: 'sse' });
        for (const c of chunks) s.push(c);
        s.end();
      };
    }, 5_000);
  });

  test('HEP: lines full of brackets inside strings (the exact depth scan)', () => {
    expectLinear((n) => {
      const line = `{"type":"message_delta","turn_id":1,"delta":"${'[{'.repeat(100)}"}\n`;
      const text = H + line.repeat(n);
      return () => decodeAll(hep, [text]);
    }, 1_000);
  });

  test('HEP: one line holding n brackets in a string', () => {
    expectLinear((n) => {
      const text = `${H}{"type":"x","s":"${'['.repeat(n)}"}\n`;
      return () => decodeAll(hep, [text]);
    }, 100_000);
  });

  test('HEP: one object with n keys', () => {
    expectLinear((n) => {
      const keys = Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',');
      const text = `${H}{"type":"agent_start","turn_id":1,${keys}}\n`;
      return () => decodeAll(hep, [text]);
    }, 10_000);
  });

  test('highbar: lines with 16-digit numbers and non-Python formatting (the slow checks)', () => {
    expectLinear((n) => {
      const line =
        '{"v":1,"type":"tool","ts":1792983750.50,"fn":"f","args":{"id":1234567890123456,"x":[1.0,2.0]},"result":null,"error":null,"started_at":1.0,"ended_at":2.0}\n';
      const text = line.repeat(n);
      return () => decodeAll(highbar, [text]);
    }, 500);
  });

  test('nativeharness SSE: one event of n data lines', () => {
    expectLinear((n) => {
      const text = `${'data: x\n'.repeat(n)}\n`;
      return () => decodeAll(nativeharness, [text], { framing: 'sse', maxEventBytes: 64 * 1024 * 1024 });
    }, 5_000);
  });

  test('SSE reader: n events fed byte by byte', () => {
    expectLinear((n) => {
      const chunks = byteChunks(bytes('id: 1\ndata: {"a":1}\n\n'.repeat(n)), 1);
      return () => {
        const r = new SseReader({ message: () => {}, diagnostic: () => {} });
        for (const c of chunks) r.push(c);
        r.end();
      };
    }, 500);
  });

  test('nativeharness JSON array: one element with a long string fed in 5-byte chunks', () => {
    expectLinear((n) => {
      const env = `{"seq":1,"ts":1,"type":"progress","workspace_id":"w","session_id":"s","turn_id":"t","payload":{"status":"${'é'.repeat(n)}"}}`;
      const chunks = byteChunks(bytes(`[${env}]`), 5);
      return () => decodeAll(nativeharness, chunks, { framing: 'json', maxEventBytes: 64 * 1024 * 1024 });
    }, 10_000);
  });

  test('nativeharness JSON array: n elements', () => {
    expectLinear((n) => {
      const env = (i: number) =>
        `{"seq":${i + 1},"ts":1,"type":"progress","workspace_id":"w","session_id":"s","turn_id":"t","payload":{"status":"x"}}`;
      const text = `[${Array.from({ length: n }, (_, i) => env(i)).join(',')}]`;
      return () => decodeAll(nativeharness, [text], { framing: 'json' });
    }, 500);
  });

  // Round thirty-two's refusal of an edited line holding `1e400` copied the AG-UI writer's state
  // for every line holding a number past a double (or 2^53): quadratic. Round thirty-three's
  // builds the record and checks it before the writer changes: n calls whose start and result
  // lines hold such a number, written back unedited and edited (each `1e400` one then refused).
  test.each(['1e20', '1e400'])(
    'AG-UI writer: n calls whose lines hold %s, written back as read and edited',
    (zz) => {
      expectLinear((n) => {
        let text = 'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n';
        for (let i = 0; i < n; i++)
          text +=
            `data: {"type":"TOOL_CALL_START","toolCallId":"c${i}","toolCallName":"f","zz":${zz},"timestamp":${i}}\n\n` +
            `data: {"type":"TOOL_CALL_END","toolCallId":"c${i}"}\n\n` +
            `data: {"type":"TOOL_CALL_RESULT","messageId":"m${i}","toolCallId":"c${i}","content":"ok","role":"tool","zz":${zz},"timestamp":${i}}\n\n`;
        const events = agui.parse(text).events;
        const edited = events.map((e) => (e.ts === undefined ? e : { ...e, ts: e.ts + 1 }));
        return () => {
          for (const stream of [events, edited]) {
            const encoder = agui.createEncoder({ onDiagnostic() {} });
            for (const e of stream) {
              try {
                encoder.write(e);
              } catch {
                // refused (an edited `1e400` line)
              }
            }
            encoder.end();
          }
        };
      }, 250);
    },
  );

  // Skipping a line costs little more than finding its end, so a call long enough to time would
  // need an input of tens of megabytes, past what an allocator recycles (see linear.ts): sixteen
  // reads of an input of a few megabytes are timed instead, fed in 64 KiB pieces so that every
  // piece's bytes are a buffer of the same size at every n (a whole input would be one buffer of
  // the input's size, recycled at one size and not at the other).
  test('oversized lines: n lines each over maxLineBytes cost what reading them costs', () => {
    expectLinear((n) => {
      const text = `${H}${`{"type":"x","s":"${'y'.repeat(2000)}"}\n`.repeat(n)}`;
      const pieces: string[] = [];
      for (let i = 0; i < text.length; i += 64 * 1024) pieces.push(text.slice(i, i + 64 * 1024));
      return () => {
        for (let i = 0; i < 16; i++) decodeAll(hep, pieces, { maxLineBytes: 1000 });
      };
    }, 125);
  });
});

// The harness must be able to fail: a splitter stand-in that scans everything it holds again on
// every push (the classic quadratic bug) is measured with the same harness and must be rejected.
// Its small input is sized with a lower MIN_MS and one attempt, so that its 64-times-larger calls
// stay short; the verdict is the same code.
describe('fuzz: the linearity harness', () => {
  test('rejects a quadratic cost (a splitter that scans all it holds again on every push)', () => {
    const m = measureLinearity(
      (n) => {
        const chunks = byteChunks(bytes(`${'x'.repeat(n)}\n`), 64);
        const held = new Uint8Array(n + 1);
        return () => {
          let length = 0;
          let found = -1;
          for (const c of chunks) {
            held.set(c, length);
            length += c.length;
            found = held.subarray(0, length).indexOf(10);
          }
          if (found !== n) throw new Error('the line end was not found');
        };
      },
      4_000,
      { minMs: 5, attempts: 1 },
    );
    expect(m.ratio, reportLinearity(m)).toBeGreaterThanOrEqual(RATIO);
  });
});
