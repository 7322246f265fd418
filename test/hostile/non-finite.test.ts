import { describe, expect, test } from 'vitest';
import type { Format } from '../../src/diagnostics';
import { codecFor } from '../../src/formats/index';
import { validateEvent } from '../../src/model';

// Found by the structured fuzzer (test/fuzz/structured.test.ts). A JSON number past a double's
// range (`1e400`) is valid JSON and reads as Infinity; one in range whose milliseconds are not
// (highbar's `1e308` seconds) becomes Infinity when converted. The decoders put it in the event:
// a duration, a time, a token count or a round of Infinity, which the model (finite numbers)
// refuses and every writer then refused or wrote as `null`. Now such a field is left out of the
// event (the line's bytes are kept as written), as a field of the wrong type is. So is a sum of
// two counts near a double's limit (1e308 + 1e308), which is Infinity too. And an AG-UI usage
// entry of a model named `__proto__` set the prototype of the usage's `byModel` instead of a key:
// the round's usage had a `model` of undefined.

const AMP_INIT =
  '{"type":"system","subtype":"init","cwd":"/w","session_id":"T-1","tools":["Bash"],"mcp_servers":[]}';
const OPENCODE_STEP =
  '{"type":"step_start","timestamp":1767225600137,"sessionID":"ses_1","part":{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"step-start"}}';
const CURSOR_INIT =
  '{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"m","permissionMode":"default"}';
const CLAUDE_INIT =
  '{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","tools":["Bash"],"mcp_servers":[],"model":"m"}';

// Each case: its name, format, lines, the type of the last line's event, and the words of the one
// warning the last line gets (undefined: none, the line holds no number past a double's range).
const CASES: Array<[string, Format, string[], string, RegExp | undefined]> = [
  [
    'amp: a result whose duration_ms is 1e400',
    'amp',
    [
      AMP_INIT,
      '{"type":"result","subtype":"error_max_turns","duration_ms":1e400,"is_error":true,"num_turns":2,"result":"r","session_id":"T-1"}',
    ],
    'run.end',
    /^duration_ms: 1e400 is past a double's range \(read as Infinity\); left out of the event$/,
  ],
  [
    'amp: a usage count of 1e400',
    'amp',
    [
      AMP_INIT,
      '{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1e400,"output_tokens":3}},"parent_tool_use_id":null,"session_id":"T-1"}',
    ],
    'round.end',
    /^input_tokens: 1e400 is past a double's range/,
  ],
  [
    'opencode: a text part whose timestamp is 1e400',
    'opencode',
    [
      OPENCODE_STEP,
      '{"type":"text","timestamp":1e400,"sessionID":"ses_1","part":{"id":"prt_2","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"hi"}}',
    ],
    'text.delta',
    /^timestamp: 1e400 is past a double's range/,
  ],
  [
    'opencode: a tool part whose exit code and start time are 1e400',
    'opencode',
    [
      OPENCODE_STEP,
      '{"type":"tool_use","timestamp":1767225600274,"sessionID":"ses_1","part":{"id":"prt_2","sessionID":"ses_1","messageID":"msg_1","type":"tool","callID":"call_1","tool":"bash","state":{"status":"completed","input":{"command":"dir"},"output":"ok","title":"List","metadata":{"output":"ok","exit":1e400},"time":{"start":1e400,"end":1767225600227}}}}',
    ],
    'tool.end',
    /^exit: 1e400, start: 1e400 are past a double's range/,
  ],
  [
    'opencode: a run end whose timestamp is 1e400',
    'opencode',
    [OPENCODE_STEP, '{"type":"done","timestamp":1e400,"sessionID":"ses_1","reason":"idle"}'],
    'run.end',
    /^timestamp: 1e400 is past a double's range/,
  ],
  [
    'cursor: a thinking record whose timestamp_ms is 1e400',
    'cursor',
    [CURSOR_INIT, '{"type":"thinking","subtype":"delta","text":"x","session_id":"s1","timestamp_ms":1e400}'],
    'reasoning.delta',
    /^timestamp_ms: 1e400 is past a double's range/,
  ],
  [
    'highbar: a tool record whose ts is 1e308 seconds',
    'highbar',
    [
      '{"v": 1, "type": "hello", "ts": 1792983750.122, "sdk": "x", "pid": 1, "tools": ["a"]}',
      '{"v": 1, "type": "tool", "ts": 1e308, "fn": "a", "args": {}, "result": null, "error": null, "started_at": 1792983780.05, "ended_at": 1792983780.1}',
    ],
    'tool.end',
    /^ts is 1e\+308 seconds, past any time in milliseconds; it is left out$/,
  ],
  [
    'highbar: an invalid record (v -1) whose ts is 1e308 seconds',
    'highbar',
    [
      '{"v": -1, "type": "tool", "ts": 1e308, "fn": "a", "args": {}, "result": null, "error": null, "started_at": 1792983780.05, "ended_at": 1792983780.1}',
    ],
    'unknown',
    undefined,
  ],
  [
    'claude: a result whose duration_ms is 1e400',
    'claude',
    [
      CLAUDE_INIT,
      '{"type":"result","subtype":"success","is_error":false,"duration_ms":1e400,"num_turns":1,"result":"r","session_id":"s1","total_cost_usd":0.1}',
    ],
    'run.end',
    /^duration_ms: 1e400 is past a double's range/,
  ],
  [
    "claude: a tool_progress whose elapsed_time_seconds (1e306) is past milliseconds' range",
    'claude',
    [
      CLAUDE_INIT,
      '{"type":"tool_progress","tool_use_id":"toolu_1","tool_name":"Bash","parent_tool_use_id":null,"elapsed_time_seconds":1e306,"session_id":"s1"}',
    ],
    'tool.liveness',
    /^a sum or product of its numbers is past a double's range \(read as Infinity\); left out of the event$/,
  ],
  [
    'gemini: a result whose stats.duration_ms is 1e400',
    'gemini',
    [
      '{"type":"init","timestamp":"2026-03-19T10:14:27.962Z","session_id":"s1","model":"m"}',
      '{"type":"result","timestamp":"2026-03-19T10:14:31.671Z","status":"success","stats":{"total_tokens":3,"input_tokens":1,"output_tokens":2,"duration_ms":1e400,"tool_calls":0}}',
    ],
    'run.end',
    /^duration_ms: 1e400 is past a double's range/,
  ],
  [
    'opencode: a step whose input and cache counts sum past a double (1e308 each)',
    'opencode',
    [
      OPENCODE_STEP,
      '{"type":"step_finish","timestamp":1767225600548,"sessionID":"ses_1","part":{"id":"prt_3","sessionID":"ses_1","messageID":"msg_1","type":"step-finish","reason":"stop","cost":0.01,"tokens":{"input":1e308,"output":1,"reasoning":0,"cache":{"read":1e308,"write":0}}}}',
    ],
    'round.end',
    /^a sum or product of its numbers is past a double's range/,
  ],
  [
    'amp: a usage whose input and cache counts sum past a double (1e308 each)',
    'amp',
    [
      AMP_INIT,
      '{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1e308,"cache_creation_input_tokens":1e308,"cache_read_input_tokens":0,"output_tokens":3}},"parent_tool_use_id":null,"session_id":"T-1"}',
    ],
    'round.end',
    /^a sum or product of its numbers is past a double's range/,
  ],
  [
    'claude: a usage whose input and cache counts sum past a double (1e308 each)',
    'claude',
    [
      CLAUDE_INIT,
      '{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"num_turns":1,"result":"r","session_id":"s1","total_cost_usd":0.1,"usage":{"input_tokens":1e308,"cache_creation_input_tokens":1e308,"cache_read_input_tokens":0,"output_tokens":3}}',
    ],
    'run.end',
    /^a sum or product of its numbers is past a double's range/,
  ],
  [
    'ag-ui: a usage entry whose model is named __proto__',
    'ag-ui',
    [
      '{"type":"RUN_STARTED","threadId":"th","runId":"r1"}',
      '{"type":"RUN_FINISHED","threadId":"th","runId":"r1","usage":[{"model":"__proto__","inputTokens":1,"outputTokens":2}]}',
    ],
    'run.end',
    undefined,
  ],
  [
    'hep: two rounds whose costs sum past a double (1e308 each) in the run',
    'hep',
    [
      '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}',
      '{"type":"agent_start","turn_id":1}',
      '{"type":"tool_start","turn_id":1,"id":"c1","name":"bash","args_summary":"ls"}',
      '{"type":"turn_done","turn_id":1,"message":"","tool_results":[{"id":"c1","name":"bash","ok":true,"text":"x"}],"usage":{"input":1,"output":1,"cost":1e308},"stop_reason":"toolUse"}',
      '{"type":"turn_done","turn_id":2,"message":"done","tool_results":[],"usage":{"input":1,"output":1,"cost":1e308},"stop_reason":"stop"}',
    ],
    'run.end',
    /^a sum or product of its numbers is past a double's range/,
  ],
];

describe('a number JSON.parse reads as Infinity, or a sum past a double, never reaches an event', () => {
  test.each(CASES)('%s', (_name, format, lines, type, words) => {
    const { events, diagnostics } = codecFor(format)!.parse(`${lines.join('\n')}\n`);
    // The last line's one warning, at its line and byte offset, in the words the case names.
    const line = lines.length;
    const offset = Buffer.byteLength(lines.slice(0, -1).join('\n')) + (line > 1 ? 1 : 0);
    const warnings = diagnostics.filter((d) => d.severity === 'warning');
    if (words === undefined) expect(warnings).toEqual([]);
    else {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ code: 'invalid_record', format, line, offset });
      expect(warnings[0]!.message.slice(`line ${line} (byte ${offset}): `.length)).toMatch(words);
    }
    // The event of the line is there, and every event is one the model accepts.
    expect(events.some((e) => e.type === type && e.provenance?.line === lines.length)).toBe(true);
    for (const e of events) {
      const checked = validateEvent(e);
      expect(checked.success, JSON.stringify(checked.success ? '' : checked.error.issues)).toBe(true);
    }
  });
});
