import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, codex } from '../../src/all';
import { CodexRecordDecoder } from '../../src/formats/codex/decode';
import { chunkAt } from '../golden';
import { FUZZ_RUNS } from '../runs';
import { type Decoded, decodeChunks, decodeLines } from './decode-runs';
import { canonical, listLine, listStream, stream, top } from './lines';

// The Codex decoder reads reasoning, agent message and command item lines spelled exactly as
// Codex writes them without building their record (docs/performance.md, "Codex decoder"); every
// other spelling takes the general path. These properties hold the two equal: the same events
// (key order included), the same diagnostics and the same written bytes, on canonical lines, on
// near misses (keys moved, extra keys, escapes, `\u`, numbers spelled otherwise, spacing, CRLF,
// a key's text inside a value, cuts), on every depth bound and on every chunking.

const RUNS = FUZZ_RUNS * 2;

// Equal as values and as written JSON (key order), and written back to the same bytes.
function expectSame(fast: Decoded, general: Decoded): void {
  expect(fast).toStrictEqual(general);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(general));
  let written: string | Error;
  try {
    written = codex.stringify(general.events);
  } catch (e) {
    written = e as Error;
  }
  if (typeof written === 'string') expect(codex.stringify(fast.events)).toBe(written);
  else expect(() => codex.stringify(fast.events)).toThrow(written.message);
}

describe('Codex decoder: the canonical item line shortcut', () => {
  test('decodes every stream as the general path does, at every depth bound', () => {
    fc.assert(
      fc.property(stream, fc.constantFrom(undefined, 0, 1, 2), (lines, maxDepth) => {
        expectSame(decodeLines(lines, true, maxDepth), decodeLines(lines, false, maxDepth));
      }),
      { numRuns: RUNS },
    );
  });

  test('takes the shortcut for canonical lines (the property above is not vacuous)', () => {
    fc.assert(
      fc.property(canonical, (l) => {
        const d = new CodexRecordDecoder({}, { report: () => {} }) as unknown as {
          canonicalItem(text: string, line: number, offset: number, out: AgentEvent[]): boolean;
        };
        const ok = d.canonicalItem(l, 1, 0, []);
        // A canonical line is refused only for what the general path keeps as written (`\u`),
        // a short string that needs escapes (an id, a phase or status word), an exit code in more
        // than 15 digits or a phase too long to be looked for near the end.
        let item: Record<string, unknown>;
        try {
          item = (JSON.parse(l) as { item: Record<string, unknown> }).item;
        } catch {
          return; // an exit code spelled so that the line is not JSON
        }
        const plain = (v: unknown) => typeof v !== 'string' || !/[\\\u0000-\u001f"]/.test(v);
        const safeCode = !l.includes('"exit_code":') || /"exit_code":(null|0|-?[1-9]\d{0,14}),/.test(l);
        const shortPhase = typeof item.phase !== 'string' || item.phase.length <= 40;
        if (
          plain(item.id) &&
          plain(item.phase) &&
          plain(item.status) &&
          safeCode &&
          shortPhase &&
          !l.includes('\\u')
        )
          expect(ok).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  test('takes the shortcut for canonical run and thread lines', () => {
    fc.assert(
      fc.property(top, fc.constantFrom(undefined, 0, 1, 2), (l, maxDepth) => {
        const d = new CodexRecordDecoder(maxDepth === undefined ? {} : { maxDepth }, {
          report: () => {},
        }) as unknown as {
          canonicalTop(text: string, line: number, offset: number, out: AgentEvent[]): boolean;
        };
        const ok = d.canonicalTop(l, 1, 0, []);
        // Refused only for a thread id that needs escapes, a count past 15 digits, usage without
        // input or output, or a long line under a depth bound below 2.
        const id = l.startsWith('{"type":"thread.started"')
          ? (JSON.parse(l) as { thread_id: string }).thread_id
          : '';
        const usage = l.startsWith('{"type":"turn.completed"')
          ? (JSON.parse(l) as { usage: Record<string, number> }).usage
          : { input_tokens: 0, output_tokens: 0 };
        if (
          !/[\\\u0000-\u001f"]/.test(id) &&
          !/\d{16}/.test(l) &&
          usage.input_tokens !== undefined &&
          usage.output_tokens !== undefined &&
          (l.length <= 4096 || maxDepth === undefined || maxDepth >= 2)
        )
          expect(ok).toBe(true);
        else expect(ok).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  test('every chunking gives what the general path gives line by line', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 6 }), (lines, cuts) => {
        const bytes = new TextEncoder().encode(lines.map((l) => `${l}\n`).join(''));
        const general = decodeChunks([bytes], false);
        expectSame(decodeChunks(chunkAt(bytes, cuts), true), general);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  test('decodes file change and todo list lines as the general path does, at every depth bound and chunking', () => {
    fc.assert(
      fc.property(
        listStream,
        fc.constantFrom(undefined, 0, 1, 2, 3, 4, 5),
        fc.array(fc.nat(), { maxLength: 4 }),
        (lines, maxDepth, cuts) => {
          expectSame(decodeLines(lines, true, maxDepth), decodeLines(lines, false, maxDepth));
          const bytes = new TextEncoder().encode(lines.map((l) => `${l}\n`).join(''));
          expectSame(decodeChunks(chunkAt(bytes, cuts), true), decodeChunks([bytes], false));
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('takes the shortcut for canonical file change and todo list lines', () => {
    fc.assert(
      fc.property(listLine, fc.constantFrom(undefined, 3, 4), (l, maxDepth) => {
        const d = new CodexRecordDecoder(maxDepth === undefined ? {} : { maxDepth }, {
          report: () => {},
        }) as unknown as {
          canonicalItem(text: string, line: number, offset: number, out: AgentEvent[]): boolean;
        };
        const ok = d.canonicalItem(l, 1, 0, []);
        // Refused only for `\u`, a short string that needs escapes (the id, a kind or status
        // word), or a long line under a depth bound below 4.
        const item = (JSON.parse(l) as { item: Record<string, unknown> }).item;
        const plain = (v: unknown) => typeof v !== 'string' || !/[\\\u0000-\u001f"]/.test(v);
        const kinds = ((item.changes ?? []) as Array<{ kind: string }>).every((c) => plain(c.kind));
        if (
          plain(item.id) &&
          plain(item.status) &&
          kinds &&
          !l.includes('\\u') &&
          (l.length <= 4096 || maxDepth === undefined || maxDepth >= 4)
        )
          expect(ok).toBe(true);
        else expect(ok).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });
});
