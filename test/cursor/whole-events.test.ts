import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { cursor } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { cursorDecodeShortcut } from '../../src/formats/cursor/decode';
import type { AgentEvent } from '../../src/model';
import { mostly } from '../canonical-lines';
import { chunkAt } from '../golden';
import { FUZZ_RUNS } from '../runs';

// The Cursor decoder builds the events of the records that open and close a session and a run
// (`system/init`, the prompt's `user` line, a successful `result`) whole, in one literal each,
// behind the shortcut's switch (src/formats/cursor/decode.ts `wholeSessionStart`, `wholeRunEnd`).
// These properties hold them equal to the general path (the switch off): the same events with
// their keys in the same order, no own `undefined`, the same diagnostics and the same bytes
// written back, on those records as Cursor writes them and near misses of each (a field absent or
// of another type, a time, a failure, keys moved, extra keys), among the lines of a turn, cut
// into chunks anywhere.

type Rec = Record<string, unknown>;

/** A field's value: mostly the usual one, else absent (`undefined`) or of another type. */
function field<T>(usual: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return mostly<unknown>(usual, fc.constantFrom<unknown>(undefined, 5, 'x', null, { n: 1 }, ''));
}

const word = fc.constantFrom('Auto', '/tmp/wt', 'default', 'say "hi"\n', '', 'é');
const count = field(fc.nat({ max: 20000 }));
const session = field(fc.constantFrom('S', 'T'));
const time = mostly(fc.constant(undefined), fc.constantFrom(1786540600000, '5', 0));

const system = fc.record({
  type: fc.constant('system'),
  subtype: mostly(fc.constant('init'), fc.constantFrom('other', undefined)),
  apiKeySource: fc.constant('login'),
  cwd: field(word),
  session_id: session,
  model: field(word),
  permissionMode: field(word),
  timestamp_ms: time,
});

const user = fc.record({
  type: fc.constant('user'),
  message: fc.constant({ role: 'user', content: [{ type: 'text', text: 'run it' }] }),
  session_id: session,
  timestamp_ms: time,
});

const result = fc.record({
  type: fc.constant('result'),
  subtype: field(fc.constantFrom('success', 'error_max_turns')),
  duration_ms: field(fc.nat({ max: 99999 })),
  duration_api_ms: fc.nat({ max: 99999 }),
  is_error: mostly(fc.constant(false), fc.constantFrom(true, undefined, 'true')),
  result: field(word),
  session_id: session,
  request_id: fc.constant('REQ'),
  usage: mostly(
    fc.record({
      inputTokens: count,
      outputTokens: count,
      cacheReadTokens: count,
      cacheWriteTokens: count,
    }),
    fc.constantFrom(undefined, 'none', [], {}),
  ),
  timestamp_ms: time,
});

const thinking = fc.constant({
  type: 'thinking',
  subtype: 'delta',
  text: 'hm',
  session_id: 'S',
  timestamp_ms: 1786540600001,
});

/** The object without its `undefined` fields, its keys mostly in order, else moved or with one more. */
const shaped = (r: fc.Arbitrary<Rec>): fc.Arbitrary<Rec> =>
  fc.tuple(r, mostly(fc.constant(0), fc.constantFrom(1, 2))).map(([r, shape]) => {
    const o = Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined));
    if (shape === 1) return Object.fromEntries(Object.entries(o).reverse());
    if (shape === 2) return { ...o, extra: [1] };
    return o;
  });

const stream = fc
  .array(fc.oneof(shaped(system), shaped(user), shaped(result), thinking), { minLength: 1, maxLength: 10 })
  .map((records) => new TextEncoder().encode(records.map((r) => `${JSON.stringify(r)}\n`).join('')));

interface Decoded {
  json: string;
  diagnostics: Diagnostic[];
  written: string;
  events: AgentEvent[];
}

function decode(chunks: readonly Uint8Array[], whole: boolean): Decoded {
  const diagnostics: Diagnostic[] = [];
  cursorDecodeShortcut.enabled = whole;
  try {
    const decoder = cursor.createDecoder({ onDiagnostic: (d) => diagnostics.push(d) });
    const events: AgentEvent[] = [];
    for (const c of chunks) events.push(...decoder.push(c));
    events.push(...decoder.end());
    return { json: JSON.stringify(events), diagnostics, written: cursor.stringify(events), events };
  } finally {
    cursorDecodeShortcut.enabled = true;
  }
}

describe('Cursor decoder: session and run events built whole', () => {
  test('gives the same events, diagnostics and written bytes as the general path, in any chunking', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 6 }), (bytes, cuts) => {
        const general = decode([bytes], false);
        const whole = decode(
          chunkAt(
            bytes,
            cuts.map((c) => c % (bytes.length + 1)),
          ),
          true,
        );
        expect(whole.json).toBe(general.json);
        expect(whole.events.filter((e) => Object.values(e).includes(undefined))).toEqual([]);
        expect(whole.diagnostics).toEqual(general.diagnostics);
        expect(whole.written).toBe(general.written);
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('the records as Cursor writes them: their events with keys in the general path order', () => {
    const lines = [
      {
        type: 'system',
        subtype: 'init',
        cwd: '/w',
        session_id: 'S',
        model: 'Auto',
        permissionMode: 'default',
      },
      { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'go' }] }, session_id: 'S' },
      {
        type: 'result',
        subtype: 'success',
        duration_ms: 5,
        is_error: false,
        result: 'ok',
        session_id: 'S',
        usage: { inputTokens: 3, outputTokens: 2, cacheReadTokens: 1, cacheWriteTokens: 0 },
      },
    ];
    const events = cursor.createDecoder().push(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const keys = events.map((e) => Object.keys(e).join(','));
    expect(keys).toEqual([
      'type,provenance,model,cwd,mode,session',
      'type,input,provenance,session',
      'type,status,provenance,reason,durationMs,answer,usage,session',
    ]);
  });
});
