import { describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { type LineSink, LineSplitter } from '../../src/framing/lines';
import { type SseHandler, type SseMessage, SseReader } from '../../src/framing/sse';

// The splitter and the SSE reader reach their sink or handler through functions held in their
// state (docs/performance.md, "The framing's state in slots", round fourteen): a sink or handler
// whose methods read `this` (a class instance) is called as a method, as a literal of closures is.

class CountingSink implements LineSink {
  lines: string[] = [];
  pairs: string[] = [];
  diagnostics: string[] = [];
  constructor(private readonly takePairs: boolean) {}
  line(text: string, line: number, offset: number, bytes: number): void {
    this.lines.push(`${line}@${offset}+${bytes}:${text}`);
  }
  diagnostic(d: Diagnostic): void {
    this.diagnostics.push(`${d.code}@${d.line}`);
  }
  lineBeforeBlank(text: string, line: number, offset: number, bytes: number): boolean {
    if (!this.takePairs || text.startsWith('keep')) return false;
    this.pairs.push(`${line}@${offset}+${bytes}:${text}`);
    return true;
  }
}

class Messages implements SseHandler {
  seen: string[] = [];
  diagnostic(d: Diagnostic): void {
    this.seen.push(`!${d.code}`);
  }
  message(m: SseMessage): void {
    this.seen.push(`${m.id}/${m.event}/${m.data}/${m.lastEventId}/${m.line}@${m.offset}`);
  }
  retry(ms: number): void {
    this.seen.push(`retry ${ms}`);
  }
  comment(text: string): void {
    this.seen.push(`: ${text}`);
  }
}

describe('receivers with `this`', () => {
  test('a class sink gets its lines, pairs and diagnostics as a method', () => {
    for (const takePairs of [false, true]) {
      const sink = new CountingSink(takePairs);
      const s = new LineSplitter(sink, { mode: 'sse', maxLineBytes: 100 });
      s.push(new Uint8Array([...Buffer.from('a\n\nkeep\n\nb\nc\n'), 0xff, 10]));
      s.end();
      expect(sink.diagnostics).toEqual(['invalid_utf8@7']);
      const rest = ['3@3+4:keep', '4@8+0:', '5@9+1:b', '6@11+1:c'];
      expect(sink.pairs).toEqual(takePairs ? ['1@0+1:a'] : []);
      expect(sink.lines).toEqual(takePairs ? rest : ['1@0+1:a', '2@2+0:', ...rest]);
    }
  });

  test('a class handler gets events, retry and comments as a method', () => {
    const h = new Messages();
    const r = new SseReader(h, { lastEventId: '0' });
    r.push('id: 1\nevent: x\ndata: one\n\n: ping\nretry: 50\ndata: two\n\nbogus\n\n');
    r.end();
    expect(h.seen).toEqual([
      '1/x/one/1/1@0',
      ': ping',
      'retry 50',
      'undefined/undefined/two/1/5@26',
      '!unknown_record',
    ]);
  });
});
