import fc from 'fast-check';
import { text as keptText, odd } from '../kept-suite';

// Codex exec lines for the fast-path properties (test/codex/fast-path.test.ts and
// writer-fast-path.test.ts): reasoning, agent message and command item lines and the run and
// thread lines (`turn.started`, `thread.started`, `turn.completed`) spelled as Codex writes them,
// near misses of them, any of them cut, and the records around them.

const value = fc.oneof(
  keptText,
  fc.string({ unit: 'binary', maxLength: 12 }), // astral characters and lone surrogates
  fc.constantFrom(
    '',
    'a"b',
    'x\\y',
    'tab\there',
    '\u0000',
    '\u001f',
    '\u2028',
    '😀',
    '","phase":"commentary"}}',
    '"}}',
    ',"exit_code":0,"status":"completed"}}',
    '","aggregated_output":"',
    '\\"',
  ),
  fc.string({ minLength: 4090, maxLength: 4200 }), // either side of the depth pre-check bound
);
const q = (s: string) => JSON.stringify(s);
const id = fc.oneof(
  fc.constantFrom('item_0', 'item_1', 'item_12', ''),
  fc.string({ maxLength: 6 }),
  fc.constantFrom('it"em', 'it\\em', 'i\u0001d', 'é'),
);
const kind = fc.constantFrom('item.completed', 'item.started', 'item.updated');
const word = fc.oneof(
  fc.constantFrom('completed', 'failed', 'declined', 'in_progress', 'commentary', 'final_answer', ''),
  fc.string({ maxLength: 8 }),
  fc.string({ minLength: 60, maxLength: 70 }), // a phase longer than the search near the end
);
const exitCode = fc.oneof(
  fc.constantFrom('null', '0', '1', '-1', '255', '999999999999999', '9007199254740993'),
  fc.integer().map(String),
  odd,
  fc.constantFrom('00', '01', '-', 'nul', 'true', '"0"', '1 '),
);

const reasoning = fc
  .tuple(kind, id, value)
  .map(([k, i, t]) => `{"type":"${k}","item":{"id":${q(i)},"type":"reasoning","text":${q(t)}}}`);
const message = fc
  .tuple(kind, id, value, fc.option(word))
  .map(
    ([k, i, t, p]) =>
      `{"type":"${k}","item":{"id":${q(i)},"type":"agent_message","text":${q(t)}${p === null ? '' : `,"phase":${q(p)}`}}}`,
  );
const command = fc
  .tuple(kind, id, value, value, exitCode, word)
  .map(
    ([k, i, c, o, x, s]) =>
      `{"type":"${k}","item":{"id":${q(i)},"type":"command_execution","command":${q(c)},"aggregated_output":${q(o)},"exit_code":${x},"status":${q(s)}}}`,
  );
/**
 * A command line as Codex writes most of them: started (no output, no exit code, in progress) or
 * completed with exit code 0 (the decoder reads these ends from the end of the line first).
 */
export const usualCommand: fc.Arbitrary<string> = fc
  .tuple(kind, id, value, value, fc.boolean())
  .map(([k, i, c, o, started]) =>
    started
      ? `{"type":"${k}","item":{"id":${q(i)},"type":"command_execution","command":${q(c)},"aggregated_output":"","exit_code":null,"status":"in_progress"}}`
      : `{"type":"${k}","item":{"id":${q(i)},"type":"command_execution","command":${q(c)},"aggregated_output":${q(o)},"exit_code":0,"status":"completed"}}`,
  );
/** A reasoning, agent message or command item line as Codex writes it. */
export const canonical: fc.Arbitrary<string> = fc.oneof(reasoning, message, command, usualCommand);

const USAGE_KEYS = [
  'input_tokens',
  'cached_input_tokens',
  'cache_write_input_tokens',
  'output_tokens',
  'reasoning_output_tokens',
];
const count = fc.oneof(
  fc.nat().map(String),
  fc.constantFrom('0', '999999999999999', '9007199254740993', '1234567890123456'),
);
const usage = (keys: string[], counts: string[]) =>
  `{"type":"turn.completed","usage":{${keys.map((k, i) => `"${k}":${counts[i % counts.length]}`).join(',')}}}`;
const counts = fc.array(count, { minLength: 1, maxLength: 5 });
// Mostly with the two counts a run's usage needs, sometimes any of Codex's keys.
const turnEnd = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.tuple(fc.subarray(USAGE_KEYS), counts).map(([keys, c]) =>
      usage(
        USAGE_KEYS.filter((k) => keys.includes(k) || k === 'input_tokens' || k === 'output_tokens'),
        c,
      ),
    ),
  },
  { weight: 1, arbitrary: fc.tuple(fc.subarray(USAGE_KEYS), counts).map(([keys, c]) => usage(keys, c)) },
);
/** A run or thread line as Codex writes it (`turn.started`, `thread.started`, `turn.completed`). */
export const top: fc.Arbitrary<string> = fc.oneof(
  fc.constant('{"type":"turn.started"}'),
  id.map((i) => `{"type":"thread.started","thread_id":${q(i)}}`),
  fc.string({ minLength: 4090, maxLength: 4200 }).map((i) => `{"type":"thread.started","thread_id":${q(i)}}`),
  turnEnd,
);
// A run or thread line changed in one place.
const topMiss = fc.oneof(
  fc.constantFrom(
    '{"type":"turn.started","x":1}',
    '{"type": "turn.started"}',
    '{"type":"turn.started"} ',
    '{"type":"turn.started"}}',
    '{"type":"turn.startedx"}',
    '{"type":"thread.started"}',
    '{"type":"thread.started","thread_id":1}',
    '{"type":"thread.started","thread_id":"t","x":1}',
    '{"type":"thread.started","thread_id":"t\\u0041"}',
    '{"type":"thread.started","thread_id":"t","thread_id":"u"}',
    '{"type":"turn.completed","usage":{}}',
    '{"type":"turn.completed","usage":null}',
    '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":2},"x":1}',
    '{"type":"turn.completed","usage":{"input_tokens":1,"input_tokens":3,"output_tokens":2}}',
    '{"type":"turn.completed","usage":{"input_tokens_x":1,"output_tokens":2}}',
    '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":[2]}}',
    '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":{"a":2}}}',
  ),
  fc
    .tuple(
      fc.shuffledSubarray([...USAGE_KEYS, 'other_tokens']),
      fc.array(
        fc.oneof(
          count,
          fc.constantFrom('00', '01', '-1', '-0', '1.0', '1e3', '1E3', ' 1', '1 ', '"1"', 'null', 'true'),
        ),
        { minLength: 1, maxLength: 6 },
      ),
    )
    .map(([keys, counts]) => usage(keys, counts)),
  // Codex's keys in order, one count spelled otherwise
  fc
    .tuple(
      fc.subarray(USAGE_KEYS, { minLength: 1 }),
      counts,
      fc.nat(),
      fc.constantFrom('00', '01', '-1', '-0', '1.0', '1e3', ' 1', '1 ', '"1"', 'null', '1234567890123456'),
    )
    .map(([keys, counts, at, odd]) => {
      const spelled = keys.map((_, i) => counts[i % counts.length]!);
      spelled[at % keys.length] = odd;
      return usage(keys, spelled);
    }),
  turnEnd.map((l) => l.replace('_tokens":', '_tokens :')),
  turnEnd.map((l) => l.replace('_tokens":', '_tokens"x:')),
  turnEnd.map((l) => l.replace('_tokens":', '_tokens" ')),
  fc.tuple(top, fc.constantFrom(' ', '\r', 'x', '}', ',')).map(([l, c]) => `${l}${c}`),
  top.map((l) => l.replace('{"type":', '{ "type":')),
  top.map((l) => l.replace(/:\{/, ': {')),
  top.map((l) => l.replace(/,"/, ', "')),
);

// A canonical line changed in one place.
const nearMiss = fc.oneof(
  // a `\u` escape (or `\/`) where JSON.stringify would not write one
  fc
    .tuple(canonical, fc.constantFrom('\\u0041', '\\/', '\\u00e9', '\\ud83d\\ude00'))
    .map(([l, esc]) => l.replace(/("text":"|"command":"|"aggregated_output":")/, `$1${esc}`)),
  // keys moved, added, spaced; the record's own keys moved or added
  canonical.map((l) => l.replace('"type":"item.', ' "type":"item.')),
  canonical.map((l) => l.replace(/\{"id":("[^"]*"),"type":("[a-z_]+")/, '{"type":$2,"id":$1')),
  canonical.map((l) => l.replace(/\}\}$/, ',"x":1}}')),
  canonical.map((l) => l.replace(/\}\}$/, '},"x":[1]}')),
  canonical.map((l) => l.replace(/\}\}$/, '}} ')),
  fc
    .tuple(canonical, fc.constantFrom(' ', ']', 'x', '"', ',', '}}'))
    .map(([l, c]) => `${l.slice(0, -2)}${c}}`),
  fc.tuple(canonical, fc.constantFrom('\r', 'x', '}', ',', ' ', '\t', '"')).map(([l, c]) => `${l}${c}`),
  canonical.map((l) => l.replace('","item":{', '","x":null,"item":{')),
  canonical.map((l) => l.replace(',"aggregated_output":', ', "aggregated_output":')),
  canonical.map((l) => l.replace(',"exit_code":', ',"exit_code":1,"exit_code":')),
  canonical.map((l) => l.replace(',"status":', ',"status":"x","status":')),
  canonical.map((l) => l.replace(',"text":', ',"text":"x","text":')),
  canonical.map((l) => l.replace(/("type":"(?:reasoning|agent_message)")/, '$1,"phase":"x"')),
  // a value of another type
  fc
    .tuple(canonical, fc.constantFrom('1', 'null', '{}', '["a"]', 'true'))
    .map(([l, v]) =>
      l.replace(/("text":|"command":|"aggregated_output":|"status":|"phase":)"/, `$1${v},"_":"`),
    ),
  // raw control characters, bad escapes, unclosed strings
  fc
    .tuple(canonical, fc.constantFrom('\t', '\u0001', '\\x', '\\', '"'))
    .map(([l, bad]) =>
      l.replace(/("text":"|"command":"|"aggregated_output":"|"status":"|"phase":"|"id":")/, `$1${bad}`),
    ),
  // the legacy shape, another item type, another record type
  canonical.map((l) => l.replace('"type":"reasoning"', '"item_type":"reasoning"')),
  canonical.map((l) => l.replace(/"type":"(reasoning|agent_message|command_execution)"/, '"type":"plan"')),
  canonical.map((l) => l.replace('"type":"item.', '"type":"items.')),
);

// Any line cut or with characters dropped.
const line = fc.oneof(
  canonical,
  nearMiss,
  top,
  topMiss,
  fc
    .tuple(fc.oneof(canonical, nearMiss, top, topMiss), fc.nat(), fc.nat())
    .map(([l, a, b]) => l.slice(0, a % (l.length + 1)) + l.slice((a % (l.length + 1)) + (b % 3))),
);

const context = fc.constantFrom(
  '{"type":"thread.started","thread_id":"t-1"}',
  '{"type":"turn.started"}',
  '{"type":"turn.completed","usage":{"input_tokens":5,"cached_input_tokens":0,"output_tokens":2}}',
  '{"type":"session.created","id":"legacy"}',
  '{"type":"item.completed","item":{"id":"item_9","type":"file_change","changes":[],"status":"completed"}}',
);
/** A stream of those lines, near misses and the records around them. */
export const stream: fc.Arbitrary<string[]> = fc.array(
  fc.oneof({ weight: 4, arbitrary: line }, { weight: 1, arbitrary: context }),
  {
    maxLength: 8,
  },
);

// File change and todo list item lines (their lists read entry by entry) and near misses.
const path = fc.oneof(value, fc.constantFrom('src/a.ts', '","kind":"add"}', '\\",'));
const changeEntry = fc
  .tuple(path, fc.oneof(fc.constantFrom('add', 'delete', 'update'), word))
  .map(([p, k]) => `{"path":${q(p)},"kind":${q(k)}}`);
const todoEntry = fc
  .tuple(fc.oneof(value, fc.constantFrom('","completed":true}', 'x"}]}}')), fc.boolean())
  .map(([t, c]) => `{"text":${q(t)},"completed":${c}}`);
const fileChange = fc
  .tuple(kind, id, fc.array(changeEntry, { maxLength: 3 }), word)
  .map(
    ([k, i, cs, s]) =>
      `{"type":"${k}","item":{"id":${q(i)},"type":"file_change","changes":[${cs.join(',')}],"status":${q(s)}}}`,
  );
const todoList = fc
  .tuple(kind, id, fc.array(todoEntry, { maxLength: 3 }))
  .map(([k, i, ts]) => `{"type":"${k}","item":{"id":${q(i)},"type":"todo_list","items":[${ts.join(',')}]}}`);
/** A file change or todo list item line as Codex writes it. */
export const listLine: fc.Arbitrary<string> = fc.oneof(fileChange, todoList);
const listMiss = fc.oneof(
  fc
    .tuple(listLine, fc.constantFrom('\\u0041', '\\/', '\\u00e9'))
    .map(([l, esc]) => l.replace(/("path":"|"text":")/, `$1${esc}`)),
  listLine.map((l) => l.replace('{"path":', '{"kind":"add","path":')),
  listLine.map((l) => l.replace(/"kind":("[^"]*")\}/, '"kind":$1,"x":1}')),
  listLine.map((l) => l.replace(/"completed":(true|false)\}/, '"completed":$1,"x":1}')),
  listLine.map((l) => l.replace('"completed":true', '"completed":1')),
  listLine.map((l) => l.replace('"completed":false', '"completed":null')),
  listLine.map((l) => l.replace('"completed":', '"completed" :')),
  listLine.map((l) => l.replace(/"path":"/, '"path":1,"_":"')),
  listLine.map((l) => l.replace(/"kind":"/, '"kind":"\\n')),
  listLine.map((l) => l.replace('},{', '}, {')),
  listLine.map((l) => l.replace('},{', '},,{')),
  listLine.map((l) => l.replace('}],', '},],')),
  listLine.map((l) => l.replace('}]}}', '},]}}')),
  listLine.map((l) => l.replace('[]', '[ ]')),
  listLine.map((l) => l.replace(',"status":', ',"status":"x","status":')),
  listLine.map((l) => l.replace(',"status":"', ',"x":[1],"status":"')),
  listLine.map((l) => l.replace(/\]\}\}$/, '],"status":"completed"}}')),
  listLine.map((l) => l.replace(/,"status":"[^"]*"\}\}$/, '}}')),
  listLine.map((l) => l.replace(/\}\}$/, ',"x":1}}')),
  fc.tuple(listLine, fc.constantFrom('\r', 'x', '}', ' ')).map(([l, c]) => `${l}${c}`),
  fc
    .tuple(listLine, fc.nat(), fc.nat())
    .map(([l, a, b]) => l.slice(0, a % (l.length + 1)) + l.slice((a % (l.length + 1)) + (b % 3))),
);
/** Streams of file change and todo list lines, their near misses, and the lines {@link stream} draws. */
export const listStream: fc.Arbitrary<string[]> = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: listLine },
    { weight: 3, arbitrary: listMiss },
    { weight: 2, arbitrary: line },
  ),
  { maxLength: 8 },
);
