import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AGUI_DECODER_SHORTCUTS } from '../../src/formats/ag-ui/decode';
import { AISDK_DECODER_SHORTCUTS } from '../../src/formats/ai-sdk/decode';
import { agui, aisdk, type Codec } from '../../src/index';
import { FUZZ_RUNS } from '../runs';
import { decodeSwitched } from './decode-switch';

// The UI decoders read their frequent long records (a carried tool output; AG-UI's tool result,
// the AI SDK's text output and error) spelled as the writers spell them without parsing them
// whole: fixed text compared in place, ids read alone, the long text parsed alone, the record
// built in one literal (docs/performance.md, "AG-UI and AI SDK codecs", round six). With the
// switch off only the general path runs. These properties hold the two equal on streams of such
// lines and their near misses (text spliced in or cut anywhere, keys moved, extra or repeated
// keys, spaces, other value types, escaped ids, a time, a subagent, long lines, other tails), in
// both framings, LF and CRLF, every chunking and several depth bounds: the same events (as JSON
// text with own `undefined` fields shown, so the hints' records with their keys in order), the
// same diagnostics, the same bytes written back.

const piece = fc.oneof(
  fc.string({ maxLength: 6, unit: 'binary' }),
  fc.constantFrom(
    '"',
    '\\',
    '\\"',
    '\\\\',
    '\\u0041',
    '\\ud800',
    '\\n',
    '\\x',
    '\t',
    '\u0000',
    '\u2028',
    '😀',
    '\ud800',
    '}',
    '{',
    '}}',
    ',"role":"tool"}',
    '","text":"',
  ),
);
const raw = fc.array(piece, { maxLength: 5 }).map((xs) => xs.join(''));
const str = fc.oneof(
  fc.string({ maxLength: 8, unit: 'binary' }),
  raw.map((s) => s.replace(/"/g, '')),
  fc.constantFrom('c1', 'call_2', 'aw-3', ''),
);
const j = JSON.stringify;

/** Every spelling the AG-UI reader takes, then the near ones. */
function aguiLines(): fc.Arbitrary<string> {
  const canonical = fc
    .tuple(str, str, str, fc.boolean())
    .chain(([a, b, t, failed]) =>
      fc.constantFrom(
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":${j(a)},"text":${j(t)}}}`,
        failed
          ? `{"type":"TOOL_CALL_RESULT","messageId":${j(a)},"toolCallId":${j(b)},"content":${j(t)},"role":"tool","metadata":{"agentwire":{"ok":false}}}`
          : `{"type":"TOOL_CALL_RESULT","messageId":${j(a)},"toolCallId":${j(b)},"content":${j(t)},"role":"tool"}`,
      ),
    );
  // The short records of a step, a message and a call (round twelve).
  const short = fc
    .tuple(str, str, str)
    .chain(([a, b, t]) =>
      fc.constantFrom(
        `{"type":"STEP_STARTED","stepName":${j(a)}}`,
        `{"type":"TEXT_MESSAGE_START","messageId":${j(a)},"role":"assistant"}`,
        `{"type":"TEXT_MESSAGE_END","messageId":${j(a)}}`,
        `{"type":"TOOL_CALL_START","toolCallId":${j(a)},"toolCallName":${j(b)}}`,
        `{"type":"TOOL_CALL_ARGS","toolCallId":${j(a)},"delta":${j(t)}}`,
        `{"type":"TOOL_CALL_END","toolCallId":${j(a)}}`,
        `{"type":"TOOL_CALL_END","toolCallId":${j(a)},"metadata":{"agentwire":{"argsSummary":${j(t)}}}}`,
      ),
    );
  const shortHandmade = fc
    .tuple(raw, raw, raw)
    .chain(([a, b, t]) =>
      fc.constantFrom(
        `{"type":"STEP_STARTED","stepName":"${a}"}`,
        `{"type":"TEXT_MESSAGE_START","messageId":"${a}","role":"assistant"}`,
        `{"type":"TEXT_MESSAGE_END","messageId":"${a}"}`,
        `{"type":"TOOL_CALL_START","toolCallId":"${a}","toolCallName":"${b}"}`,
        `{"type":"TOOL_CALL_ARGS","toolCallId":"${a}","delta":"${t}"}`,
        `{"type":"TOOL_CALL_END","toolCallId":"${a}","metadata":{"agentwire":{"argsSummary":"${t}"}}}`,
      ),
    );
  const shortRespelled = fc
    .tuple(str, str, str)
    .chain(([a, b, t]) =>
      fc.constantFrom(
        `{"type":"STEP_STARTED","stepName":${j(a)},"timestamp":5}`,
        `{"type":"STEP_STARTED","stepName":5}`,
        `{"type":"STEP_STARTED" ,"stepName":${j(a)}}`,
        `{"type":"STEP_FINISHED","stepName":${j(a)}}`,
        `{"type":"TEXT_MESSAGE_START","messageId":${j(a)}}`,
        `{"type":"TEXT_MESSAGE_START","messageId":${j(a)},"role":"user"}`,
        `{"type":"TEXT_MESSAGE_START","messageId":${j(a)},"role":"assistant","subagentRunId":"k1"}`,
        `{"type":"TEXT_MESSAGE_START","role":"assistant","messageId":${j(a)}}`,
        `{"type":"TEXT_MESSAGE_END","messageId":${j(a)},"messageId":${j(b)}}`,
        `{"type":"TEXT_MESSAGE_END","messageId":"\\u0061${a.replace(/["\\\u0000-\u001f]/g, '')}"}`,
        `{"type":"TEXT_MESSAGE_CHUNK","messageId":${j(a)},"delta":${j(t)}}`,
        `{"type":"TOOL_CALL_START","toolCallId":${j(a)},"toolCallName":${j(b)},"parentMessageId":"m1"}`,
        `{"type":"TOOL_CALL_START","toolCallName":${j(b)},"toolCallId":${j(a)}}`,
        `{"type":"TOOL_CALL_START","toolCallId":${j(a)}${j(b)}}`,
        `{"type":"TOOL_CALL_ARGS","toolCallId":${j(a)},"delta":5}`,
        `{"type":"TOOL_CALL_ARGS","toolCallId":${j(a)},"delta":${j(t)},"timestamp":1}`,
        `{"type":"TOOL_CALL_ARGS","toolCallId":${j(a)},"delta":"${'w'.repeat(4100)}"}`,
        `{"type":"TOOL_CALL_CHUNK","toolCallId":${j(a)},"delta":${j(t)}}`,
        `{"type":"TOOL_CALL_END","toolCallId":${j(a)},"metadata":{"agentwire":{"argsSummary":${j(t)},"kind":"read"}}}`,
        `{"type":"TOOL_CALL_END","toolCallId":${j(a)},"metadata":{"agentwire":{"argsSummary":5}}}`,
        `{"type":"TOOL_CALL_END","toolCallId":${j(a)},"metadata":{"agentwire":{"command":${j(t)}}}}`,
        `{"type":"TOOL_CALL_END","toolCallId":${j(a)},"metadata":{"agentwire":{"argsSummary":${j(t)}}},"subagentRunId":"k1"}`,
        `{"type":"TOOL_CALL_END","toolCallId":${j(a)},"metadata":{"other":{"argsSummary":${j(t)}}}}`,
        `{"type":"TOOL_CALL_END","toolCallId":${j(a)},"metadata":{"agentwire":{"argsSummary":${j(t)}}}}}`,
        `{"type":"TOOL_CALL_END","toolCallId":5}`,
      ),
    );
  const handmade = fc
    .tuple(raw, raw, raw)
    .chain(([a, b, t]) =>
      fc.constantFrom(
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":"${a}","text":"${t}"}}`,
        `{"type":"TOOL_CALL_RESULT","messageId":"${a}","toolCallId":"${b}","content":"${t}","role":"tool"}`,
        `{"type":"TOOL_CALL_RESULT","messageId":"${a}","toolCallId":"${b}","content":"${t}","role":"tool","metadata":{"agentwire":{"ok":false}}}`,
      ),
    );
  const respelled = fc
    .tuple(str, str, str)
    .chain(([a, b, t]) =>
      fc.constantFrom(
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"text":${j(t)},"call":${j(a)}}}`,
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":${j(a)},"text":${j(t)},"stream":"stdout"}}`,
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":${j(a)},"text":${j(t)}},"timestamp":5}`,
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":${j(a)},"text":${j(t)}},"subagentRunId":"k1"}`,
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":${j(a)},"text":5}}`,
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":${j(a)},"text":${j(t)}} }`,
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":"\\u0063${a.replace(/["\\\u0000-\u001f]/g, '')}","text":${j(t)}}}`,
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":${j(a)},"text":${j(t)},"text":"again"}}`,
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":${j(a)},"text":"${'x'.repeat(4100)}"}}`,
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":${j(a)}, "text":${j(t)}}}`,
        `{"type":"CUSTOM","name":"agentwire.usage","value":{"call":${j(a)},"text":${j(t)}}}`,
        `{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":${j(a)}${j(t)}}}`,
        `{"type":"TOOL_CALL_RESULT","messageId":${j(a)}${j(b)},"content":${j(t)},"role":"tool"}`,
        `{"type":"TOOL_CALL_RESULT","messageId":${j(a)},"toolCallId":${j(b)}${j(t)},"role":"tool"}`,
        `{"type":"TOOL_CALL_RESULT","messageId":${j(a)},"toolCallId":${j(b)},"content":${j(t)}}`,
        `{"type":"TOOL_CALL_RESULT","messageId":${j(a)},"toolCallId":${j(b)},"content":${j(t)},"role":"user"}`,
        `{"type":"TOOL_CALL_RESULT","toolCallId":${j(b)},"messageId":${j(a)},"content":${j(t)},"role":"tool"}`,
        `{"type":"TOOL_CALL_RESULT","messageId":${j(a)},"toolCallId":${j(b)},"content":[{"type":"text","text":${j(t)}}],"role":"tool"}`,
        `{"type":"TOOL_CALL_RESULT","messageId":${j(a)},"toolCallId":${j(b)},"content":${j(t)},"role":"tool","metadata":{"agentwire":{"ok":true}}}`,
        `{"type":"TOOL_CALL_RESULT","messageId":${j(a)},"toolCallId":${j(b)},"content":${j(t)},"role":"tool","metadata":{"agentwire":{"ok":false,"exitCode":1}}}`,
        `{"type":"TOOL_CALL_RESULT","messageId":${j(a)},"toolCallId":${j(b)},"content":${j(t)},"role":"tool","timestamp":7}`,
        `{"type":"TOOL_CALL_RESULT","messageId":${j(a)},"toolCallId":${j(b)},"content":${j(t)},"role":"tool","subagentRunId":"k1"}`,
        `{"type":"TOOL_CALL_RESULT","messageId":5,"toolCallId":${j(b)},"content":${j(t)},"role":"tool"}`,
        `{"type":"TOOL_CALL_RESULT","messageId":${j(a)},"toolCallId":${j(b)},"content":"${'y'.repeat(4100)}","role":"tool"}`,
      ),
    );
  return edits(fc.oneof(canonical, handmade, short, shortHandmade), fc.oneof(respelled, shortRespelled));
}

/** Every spelling the AI SDK reader takes, then the near ones. */
function aisdkLines(): fc.Arbitrary<string> {
  const canonical = fc
    .tuple(str, str)
    .chain(([a, t]) =>
      fc.constantFrom(
        `{"type":"data-agentwire.tool.output","data":{"call":${j(a)},"text":${j(t)}}}`,
        `{"type":"tool-output-available","toolCallId":${j(a)},"output":${j(t)}}`,
        `{"type":"tool-output-error","toolCallId":${j(a)},"errorText":${j(t)}}`,
      ),
    );
  const handmade = fc
    .tuple(raw, raw)
    .chain(([a, t]) =>
      fc.constantFrom(
        `{"type":"data-agentwire.tool.output","data":{"call":"${a}","text":"${t}"}}`,
        `{"type":"tool-output-available","toolCallId":"${a}","output":"${t}"}`,
        `{"type":"tool-output-error","toolCallId":"${a}","errorText":"${t}"}`,
      ),
    );
  const respelled = fc
    .tuple(str, str)
    .chain(([a, t]) =>
      fc.constantFrom(
        `{"type":"data-agentwire.tool.output","data":{"text":${j(t)},"call":${j(a)}}}`,
        `{"type":"data-agentwire.tool.output","data":{"call":${j(a)},"text":${j(t)},"lane":"k1"}}`,
        `{"type":"data-agentwire.tool.output","data":{"call":${j(a)},"text":${j(t)}},"id":"x"}`,
        `{"type":"data-agentwire.tool.output","data":{"call":"\\u0063${a.replace(/["\\\u0000-\u001f]/g, '')}","text":${j(t)}}}`,
        `{"type":"data-agentwire.tool.output","data":{"call":${j(a)},"text":"${'x'.repeat(4100)}"}}`,
        `{"type":"data-agentwire.tool.output","data":{"call":${j(a)},"text":null}}`,
        `{"type":"data-agentwire.usage","data":{"call":${j(a)},"text":${j(t)}}}`,
        `{"type":"data-agentwire.tool.output","data":{"call":${j(a)}${j(t)}}}`,
        `{"type":"tool-output-available","toolCallId":${j(a)}${j(t)}}`,
        `{"type":"tool-output-error","toolCallId":${j(a)}${j(t)}}`,
        `{"type":"tool-output-available","toolCallId":${j(a)},"output":{"text":${j(t)}}}`,
        `{"type":"tool-output-available","toolCallId":${j(a)},"output":${j(t)},"preliminary":true}`,
        `{"type":"tool-output-available","toolCallId":${j(a)},"output":${j(t)},"toolMetadata":{"agentwire":{"exitCode":1}}}`,
        `{"type":"tool-output-available","output":${j(t)},"toolCallId":${j(a)}}`,
        `{"type":"tool-output-available","toolCallId":${j(a)},"output":${j(t)},"output":"again"}`,
        `{"type":"tool-output-available","toolCallId":${j(a)},"output":${j(t)} }`,
        `{"type":"tool-output-available","toolCallId":${j(a)},"toolName":"read","output":${j(t)}}`,
        `{"type":"tool-output-error","toolCallId":${j(a)},"errorText":5}`,
        `{"type":"tool-output-error","toolCallId":7,"errorText":${j(t)}}`,
        `{"type":"tool-output-error","toolCallId":${j(a)},"errorText":"${'z'.repeat(4100)}"}`,
        `{"type":"tool-output-denied","toolCallId":${j(a)},"errorText":${j(t)}}`,
      ),
    );
  return edits(fc.oneof(canonical, handmade), respelled);
}

/** The lines, then edited: text spliced in or cut anywhere. */
function edits(lines: fc.Arbitrary<string>, respelled: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const edited = fc.tuple(lines, fc.nat(), fc.nat(3), raw).map(([line, at, cut, insert]) => {
    const i = at % (line.length + 1);
    return line.slice(0, i) + insert + line.slice(Math.min(line.length, i + cut));
  });
  // One character of the line (its fixed text most of the time) changed: a misspelled key or type,
  // a tail or a bracket off by one.
  const misspelled = fc
    .tuple(lines, fc.nat(), fc.constantFrom('x', '}', '"', ' ', ',', ':', ']', '\\'))
    .map(([line, at, c]) => {
      const i = at % line.length;
      return line.slice(0, i) + c + line.slice(i + 1);
    });
  const tails = lines.chain((line) =>
    fc.constantFrom(
      `${line.slice(0, -2)}x}`,
      `${line.slice(0, -2)} }`,
      `${line.slice(0, -1)}]`,
      `${line.slice(0, -2)}}`,
      `${line.slice(0, -3)}}}`,
      `${line.slice(0, -3)}x}}`,
    ),
  );
  return fc.oneof(
    { weight: 3, arbitrary: lines },
    { weight: 2, arbitrary: edited },
    { weight: 2, arbitrary: misspelled },
    { weight: 1, arbitrary: tails },
    { weight: 2, arbitrary: respelled },
  );
}

const CASES = [
  {
    name: 'ag-ui',
    codec: agui as Codec,
    flag: AGUI_DECODER_SHORTCUTS,
    lines: aguiLines(),
    opening: [
      '{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}',
      '{"type":"STEP_STARTED","stepName":"round 1"}',
    ],
    around: [
      '{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"read"}',
      '{"type":"TOOL_CALL_END","toolCallId":"c1"}',
      '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}',
      '{"type":"STEP_FINISHED","stepName":"round 1"}',
      '{"type":"CUSTOM","name":"agentwire.session.start","value":{"protocol":"v1"}}',
    ],
  },
  {
    name: 'ai-sdk',
    codec: aisdk as Codec,
    flag: AISDK_DECODER_SHORTCUTS,
    lines: aisdkLines(),
    opening: ['{"type":"start","messageId":"r1"}', '{"type":"start-step"}'],
    around: [
      '{"type":"tool-input-available","toolCallId":"c1","toolName":"read","input":{}}',
      '{"type":"text-delta","id":"m1","delta":"hi"}',
      '{"type":"finish-step"}',
      '{"type":"data-agentwire.session.start","data":{"protocol":"v1"}}',
    ],
  },
];

describe.each(CASES)('$name decoder: canonical-line readers and the general path', (c) => {
  test('give the same events, diagnostics and written bytes, in both framings, LF and CRLF, every chunking', () => {
    const body = fc.array(
      fc.oneof({ weight: 4, arbitrary: c.lines }, { weight: 1, arbitrary: fc.constantFrom(...c.around) }),
      { minLength: 1, maxLength: 8 },
    );
    fc.assert(
      fc.property(
        fc.boolean(),
        body,
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.constantFrom<number | undefined>(undefined, undefined, 1, 2, 3),
        (open, rows, sse, crlf, cuts, maxDepth) => {
          const eol = crlf ? '\r\n' : '\n';
          // Raw line breaks inside a spliced line would split it: they become spaces.
          const lines = [...(open ? c.opening : []), ...rows].map((l) => l.replace(/[\r\n]/g, ' '));
          const wire = sse
            ? lines.map((l) => `data: ${l}${eol}${eol}`).join('')
            : lines.map((l) => l + eol).join('');
          const bytes = new TextEncoder().encode(wire);
          const fast = decodeSwitched(c.codec, c.flag, true, bytes, cuts, maxDepth);
          expect(fast).toEqual(decodeSwitched(c.codec, c.flag, false, bytes, cuts, maxDepth));
        },
      ),
      { numRuns: FUZZ_RUNS * 4 },
    );
  });

  test('the writers’ own lines are read by the readers and come back byte for byte', () => {
    for (const line of c.name === 'ag-ui'
      ? [
          '{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":"c1","text":"a \\"b\\"\\nc"}}',
          '{"type":"TOOL_CALL_RESULT","messageId":"m9","toolCallId":"c1","content":"ok","role":"tool"}',
          '{"type":"TOOL_CALL_RESULT","messageId":"m9","toolCallId":"c1","content":"no","role":"tool","metadata":{"agentwire":{"ok":false}}}',
          '{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant"}',
          '{"type":"TEXT_MESSAGE_END","messageId":"m2"}',
          '{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"read"}',
          '{"type":"TOOL_CALL_ARGS","toolCallId":"c2","delta":"{\\"path\\":\\"a\\"}"}',
          '{"type":"TOOL_CALL_END","toolCallId":"c2","metadata":{"agentwire":{"argsSummary":"path=\\"a\\""}}}',
          '{"type":"STEP_STARTED","stepName":"round 2"}',
        ]
      : [
          '{"type":"data-agentwire.tool.output","data":{"call":"c1","text":"a \\"b\\"\\nc"}}',
          '{"type":"tool-output-available","toolCallId":"c1","output":"ok"}',
          '{"type":"tool-output-error","toolCallId":"c1","errorText":"no"}',
        ]) {
      const wire = [...c.opening, line].map((l) => `data: ${l}\n\n`).join('');
      const bytes = new TextEncoder().encode(wire);
      const fast = decodeSwitched(c.codec, c.flag, true, bytes, [], undefined);
      expect(fast).toEqual(decodeSwitched(c.codec, c.flag, false, bytes, [], undefined));
      expect(fast.diagnostics).toEqual([]);
      expect(fast.json).toContain(`"record":${JSON.stringify(JSON.parse(line))}`);
      expect(fast.written).toBe(wire);
    }
  });
});
