// Seeded corpora shaped like the CLI agents' captures (../shared/captures/opencode, cursor): the
// same record types, key orders and field sets, with generated text. Every line is written as
// the agent writes it (`JSON.stringify` of the record), so each codec gives the bytes back.

import { prng } from './corpus.mjs';

const WORDS = (
  'the a to of and in is it for on that with as this be test file run build error value function ' +
  'return const let import export module type string number array object null true false async ' +
  'src/index.ts package.json README.md "quoted" path=./lib {x} [1,2] x<y && y>z 100% ok done'
).split(' ');

function text(rand, min, max) {
  const target = min + Math.floor(rand() * (max - min + 1));
  let s = '';
  while (s.length < target) {
    const w = WORDS[Math.floor(rand() * WORDS.length)];
    s += s.length === 0 ? w : rand() < 0.06 ? `\n${w}` : ` ${w}`;
  }
  return s;
}

function id(rand, prefix, n) {
  const alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let s = prefix;
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
  return s;
}

function collect(mb, lines) {
  const parts = [];
  let bytes = 0;
  let count = 0;
  for (const line of lines) {
    const b = Buffer.from(`${line}\n`);
    parts.push(b);
    bytes += b.length;
    count++;
    if (bytes >= mb * 1e6) break;
  }
  return { buffer: Buffer.concat(parts), lines: count };
}

/** OpenCode lines (without the newline), forever. */
export function* opencodeLines(seed = 7) {
  const rand = prng(seed);
  const session = id(rand, 'ses_', 26);
  let t = 1767036059338;
  const emit = (type, data) =>
    JSON.stringify({ type, timestamp: (t += 1 + Math.floor(rand() * 900)), sessionID: session, ...data });
  for (;;) {
    const message = id(rand, 'msg_', 26);
    const part = (type, rest) => ({
      id: id(rand, 'prt_', 26),
      sessionID: session,
      messageID: message,
      type,
      ...rest,
    });
    yield emit('step_start', { part: part('step-start', { snapshot: id(rand, '', 40) }) });
    const tools = rand() < 0.6 ? 1 + Math.floor(rand() * 3) : 0;
    for (let i = 0; i < tools; i++) {
      const output = text(rand, 200, 2000);
      const description = text(rand, 10, 40);
      const input = { command: text(rand, 5, 40), description };
      const time = { start: t, end: t + 50 };
      const state =
        rand() < 0.9
          ? {
              status: 'completed',
              input,
              output,
              title: description,
              metadata: { output, exit: 0, description },
              time,
            }
          : { status: 'error', input, error: output, time };
      yield emit('tool_use', { part: part('tool', { callID: id(rand, '', 16), tool: 'bash', state }) });
    }
    if (tools === 0)
      yield emit('text', { part: part('text', { text: text(rand, 100, 600), time: { start: t, end: t } }) });
    const cache = Math.floor(rand() * 30000);
    yield emit('step_finish', {
      part: part('step-finish', {
        reason: tools > 0 ? 'tool-calls' : 'stop',
        snapshot: id(rand, '', 40),
        cost: Math.floor(rand() * 1e6) / 1e7,
        tokens: {
          input: Math.floor(rand() * 5000),
          output: Math.floor(rand() * 500),
          reasoning: 0,
          cache: { read: cache, write: 0 },
        },
      }),
    });
  }
}

/** Cursor lines (without the newline), forever. */
export function* cursorLines(seed = 11) {
  const rand = prng(seed);
  const session = id(rand, '', 36);
  let t = 1786540600505;
  const ts = () => (t += 1 + Math.floor(rand() * 50));
  for (;;) {
    yield JSON.stringify({
      type: 'system',
      subtype: 'init',
      apiKeySource: 'login',
      cwd: '/tmp/wt',
      session_id: session,
      model: 'Auto',
      permissionMode: 'default',
    });
    yield JSON.stringify({
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: text(rand, 20, 200) }] },
      session_id: session,
    });
    let all = '';
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3; i++)
        yield JSON.stringify({
          type: 'thinking',
          subtype: 'delta',
          text: text(rand, 10, 30),
          session_id: session,
          timestamp_ms: ts(),
        });
      yield JSON.stringify({
        type: 'thinking',
        subtype: 'completed',
        session_id: session,
        timestamp_ms: ts(),
      });
      const say = text(rand, 40, 300);
      all += say;
      yield JSON.stringify({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'text', text: say }] },
        session_id: session,
        model_call_id: 'MC',
        timestamp_ms: ts(),
      });
      const call = id(rand, 'tool_', 8);
      const args = {
        command: text(rand, 5, 30),
        workingDirectory: '/tmp/wt',
        timeout: 30000,
        toolCallId: call,
        simpleCommands: ['git'],
        isBackground: false,
      };
      const started = String(t);
      yield JSON.stringify({
        type: 'tool_call',
        subtype: 'started',
        call_id: call,
        tool_call: {
          shellToolCall: { args, description: 'Run it' },
          hookAdditionalContexts: [],
          toolCallId: call,
          startedAtMs: started,
        },
        model_call_id: 'MC',
        session_id: session,
        timestamp_ms: ts(),
      });
      const out = text(rand, 200, 2000);
      yield JSON.stringify({
        type: 'tool_call',
        subtype: 'completed',
        call_id: call,
        tool_call: {
          shellToolCall: {
            args,
            result: {
              success: {
                command: args.command,
                workingDirectory: '/tmp/wt',
                exitCode: 0,
                signal: '',
                stdout: out,
                stderr: '',
                executionTime: 120,
              },
            },
            description: 'Run it',
          },
          hookAdditionalContexts: [],
          toolCallId: call,
          startedAtMs: started,
          completedAtMs: String(t + 200),
        },
        model_call_id: 'MC',
        session_id: session,
        timestamp_ms: ts(),
      });
    }
    yield JSON.stringify({
      type: 'result',
      subtype: 'success',
      duration_ms: 16902,
      duration_api_ms: 16902,
      is_error: false,
      result: all,
      session_id: session,
      request_id: 'REQ',
      usage: { inputTokens: 17161, outputTokens: 216, cacheReadTokens: 17088, cacheWriteTokens: 0 },
    });
  }
}

/** An OpenCode stream (`opencode run --format json`) of about `mb` MB. */
export function generateOpencode({ mb = 100, seed = 7 } = {}) {
  return collect(mb, opencodeLines(seed));
}

/** A Cursor stream (`cursor-agent --output-format stream-json`) of about `mb` MB. */
export function generateCursor({ mb = 100, seed = 11 } = {}) {
  return collect(mb, cursorLines(seed));
}
