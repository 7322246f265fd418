// Seeded generator of the benchmark corpus. Nothing large is committed: the same seed gives the
// same bytes on every machine, so runs are comparable.
//
// One HEP v1 stream: a header, one run, then rounds of `message_start`, many short
// `message_delta` frames, sometimes tool calls (`tool_start`, `tool_delta` with 200–2000
// characters of output) and a `turn_done` with tool results and usage. Every line is written in
// the reference key order, so `hep.stringify(hep.parse(x).events) === x` holds for the corpus.
//
// Variants: `ascii`, and `cjk` (CJK text and emoji, so UTF-8 sequences split across chunks).

/** mulberry32: a small, fast, seedable PRNG (uniform in [0, 1)). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ASCII_WORDS = (
  'the a to of and in is it for on that with as this be test file run build error value function ' +
  'return const let import export module type string number array object null true false async ' +
  'await promise stream chunk line byte buffer decode encode parse check tool call result output ' +
  'src/index.ts package.json README.md "quoted" path=./lib {x} [1,2] x<y && y>z 100% ok done'
).split(' ');
const CJK_WORDS = (
  '这是 一个 测试 文件 构建 错误 函数 返回 字符串 数组 对象 流式 解析 检查 工具 调用 结果 输出 ' +
  'テスト ファイル エラー 関数 結果 出力 確認 完了 코드 파일 오류 결과 ✅ 🚀 🎉 👍🏽 🧪 📦 ⚠️ — … ' +
  'the test ok run'
).split(' ');

function makeText(rand, words, minChars, maxChars) {
  const target = minChars + Math.floor(rand() * (maxChars - minChars + 1));
  let s = '';
  while (s.length < target) {
    const w = words[Math.floor(rand() * words.length)];
    s += s.length === 0 ? w : rand() < 0.06 ? `\n${w}` : ` ${w}`;
  }
  // Cut on a code point boundary (never half a surrogate pair).
  let end = Math.min(s.length, maxChars);
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end);
}

function cost(rand) {
  // Never integral: HEP writes integral costs as `1.0`, JSON.stringify as `1`.
  return Math.floor(rand() * 10000) / 100000 + 0.00001;
}

/**
 * Yields HEP v1 lines (without the newline) forever: a header, `agent_start`, then rounds.
 * `variant` is `ascii` or `cjk`.
 */
export function* hepLines(seed = 1, variant = 'ascii') {
  const rand = prng(seed);
  const words = variant === 'cjk' ? CJK_WORDS : ASCII_WORDS;
  yield JSON.stringify({ type: 'hep_header', hep: 'v1', fah: '0.42.0', session: `s-bench-${seed}` });
  yield JSON.stringify({ type: 'agent_start', turn_id: 1 });
  let callId = 0;
  for (let turn = 1; ; turn++) {
    yield JSON.stringify({ type: 'message_start', turn_id: turn, role: 'assistant' });
    const deltas = 4 + Math.floor(rand() * 24);
    let message = '';
    for (let i = 0; i < deltas; i++) {
      const delta = makeText(rand, words, 4, 60);
      message += delta;
      yield JSON.stringify({ type: 'message_delta', turn_id: turn, delta });
    }
    const results = [];
    if (rand() < 0.45) {
      const calls = 1 + Math.floor(rand() * 3);
      for (let c = 0; c < calls; c++) {
        const id = `call_${++callId}`;
        const name = ['read', 'bash', 'grep', 'edit'][Math.floor(rand() * 4)];
        yield JSON.stringify({
          type: 'tool_start',
          turn_id: turn,
          id,
          name,
          args_summary: `path=${JSON.stringify(makeText(rand, words, 5, 30))}`,
        });
        const updates = 1 + Math.floor(rand() * 3);
        let first = '';
        for (let u = 0; u < updates; u++) {
          const update = makeText(rand, words, 200, 2000);
          if (u === 0) first = update;
          yield JSON.stringify({ type: 'tool_delta', turn_id: turn, id, update });
        }
        results.push({ id, name, ok: rand() < 0.9, text: first });
      }
    }
    yield JSON.stringify({
      type: 'turn_done',
      turn_id: turn,
      message,
      tool_results: results,
      usage: {
        input: 500 + Math.floor(rand() * 50000),
        output: 10 + Math.floor(rand() * 2000),
        cost: cost(rand),
      },
      stop_reason: results.length > 0 ? 'toolUse' : 'stop',
    });
  }
}

/**
 * Yields Buffers of about `pieceBytes` each, made of whole rounds, until `bytes` bytes have been
 * produced (the last piece may overshoot by one line). Memory stays at one piece.
 */
export function* hepPieces({ bytes, seed = 1, variant = 'ascii', pieceBytes = 1 << 20 }) {
  let produced = 0;
  let parts = [];
  let size = 0;
  for (const line of hepLines(seed, variant)) {
    parts.push(line);
    size += line.length + 1; // UTF-16 length: only a trigger, the Buffer length is exact
    // Pieces end after a `turn_done`, so any prefix of pieces is a complete HEP stream.
    if (size >= pieceBytes && line.startsWith('{"type":"turn_done"')) {
      const buf = Buffer.from(`${parts.join('\n')}\n`, 'utf8');
      parts = [];
      size = 0;
      produced += buf.length;
      yield buf;
      if (produced >= bytes) return;
    }
  }
}

/** The whole corpus as one Buffer of about `mb` MiB, with its line count. */
export function generateHep({ mb = 100, seed = 1, variant = 'ascii' } = {}) {
  const pieces = [...hepPieces({ bytes: mb * 1024 * 1024, seed, variant })];
  const buffer = Buffer.concat(pieces);
  let lines = 0;
  for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) lines++;
  return { buffer, lines };
}

/** `buffer` cut into `size`-byte views (no copies). */
export function chunk(buffer, size) {
  const out = [];
  for (let i = 0; i < buffer.length; i += size)
    out.push(buffer.subarray(i, Math.min(i + size, buffer.length)));
  return out;
}

/**
 * Yields `size`-byte chunks of a generated stream of `bytes` bytes, generated on the fly: for
 * the 1 GB runs, which must never hold the input.
 */
export function* hepChunkStream({ bytes, seed = 1, variant = 'ascii', size = 64 * 1024 }) {
  for (const piece of hepPieces({ bytes, seed, variant })) {
    for (let i = 0; i < piece.length; i += size) yield piece.subarray(i, Math.min(i + size, piece.length));
  }
}

/**
 * Yields Gemini CLI stream-json lines (without the newline) shaped like the official snapshots
 * (`../shared/captures/gemini-cli/`): `init`, the user's `message`, then rounds of assistant
 * `delta: true` messages, sometimes `tool_use` + `tool_result` (200–2000 characters of output,
 * now and then an error), and every `runRounds` rounds a `result` with per-model stats, after
 * which the next process starts with its own `init`. Keys in Gemini CLI's order, ISO timestamps.
 */
export function* geminiLines(seed = 1, runRounds = 40) {
  const rand = prng(seed);
  const words = ASCII_WORDS;
  let ms = Date.UTC(2026, 2, 19, 10, 14, 27, 962);
  const ts = () => new Date((ms += 1 + Math.floor(rand() * 400))).toISOString();
  let callId = 0;
  for (let run = 1; ; run++) {
    const start = ms;
    yield JSON.stringify({
      type: 'init',
      timestamp: ts(),
      session_id: `s-bench-${seed}-${run}`,
      model: 'auto',
    });
    yield JSON.stringify({
      type: 'message',
      timestamp: ts(),
      role: 'user',
      content: makeText(rand, words, 20, 200),
    });
    let input = 0;
    let output = 0;
    let calls = 0;
    for (let round = 0; round < runRounds; round++) {
      const deltas = 4 + Math.floor(rand() * 24);
      for (let i = 0; i < deltas; i++) {
        const content = makeText(rand, words, 4, 60);
        yield JSON.stringify({ type: 'message', timestamp: ts(), role: 'assistant', content, delta: true });
      }
      input += 500 + Math.floor(rand() * 50000);
      output += 10 + Math.floor(rand() * 2000);
      if (rand() < 0.45) {
        const n = 1 + Math.floor(rand() * 3);
        for (let c = 0; c < n; c++) {
          const name = ['read_file', 'run_shell_command', 'search_file_content', 'replace'][
            Math.floor(rand() * 4)
          ];
          const tool_id = `${name}_${1773896067962 + ++callId}_${c}`;
          calls++;
          yield JSON.stringify({
            type: 'tool_use',
            timestamp: ts(),
            tool_name: name,
            tool_id,
            parameters: { absolute_path: `/work/app/${makeText(rand, words, 5, 30)}` },
          });
          const output = makeText(rand, words, 200, 2000);
          yield JSON.stringify(
            rand() < 0.9
              ? { type: 'tool_result', timestamp: ts(), tool_id, status: 'success', output }
              : {
                  type: 'tool_result',
                  timestamp: ts(),
                  tool_id,
                  status: 'error',
                  output,
                  error: { type: 'TOOL_EXECUTION_ERROR', message: output },
                },
          );
        }
      }
    }
    const cached = Math.floor(input / 4);
    const model = {
      total_tokens: input + output,
      input_tokens: input,
      output_tokens: output,
      cached,
      input: input - cached,
    };
    yield JSON.stringify({
      type: 'result',
      timestamp: ts(),
      status: 'success',
      stats: { ...model, duration_ms: ms - start, tool_calls: calls, models: { 'gemini-2.5-pro': model } },
    });
  }
}

/** A Gemini stream-json corpus of about `mb` MiB (whole processes, each ending with `result`). */
export function generateGemini({ mb = 100, seed = 1 } = {}) {
  const target = mb * 1024 * 1024;
  const parts = [];
  let piece = [];
  let size = 0;
  let total = 0;
  for (const line of geminiLines(seed)) {
    piece.push(line);
    size += line.length + 1;
    if (line.startsWith('{"type":"result"')) {
      if (size >= 1 << 20 || total + size >= target) {
        const buf = Buffer.from(`${piece.join('\n')}\n`, 'utf8');
        parts.push(buf);
        total += buf.length;
        piece = [];
        size = 0;
        if (total >= target) break;
      }
    }
  }
  return { buffer: Buffer.concat(parts) };
}

/**
 * Yields Codex `exec --json` lines (without the newline), shaped like the captures: a thread
 * re-started per run (resume), turns of reasoning items, commentary, commands started and
 * completed with 200–2000 characters of output, now and then a file change or a to-do list
 * update, a final answer, and `turn.completed` with the thread's growing running total. Every
 * line is compact JSON in Codex's key order, so `codex.stringify(codex.parse(x).events) === x`.
 */
export function* codexLines(seed = 1) {
  const rand = prng(seed);
  const text = (min, max) => makeText(rand, ASCII_WORDS, min, max);
  const q = (s) => JSON.stringify(s);
  const thread = '0199f000-0419-7000-8000-00000000c0de';
  const total = [0, 0, 0, 0];
  for (;;) {
    yield `{"type":"thread.started","thread_id":"${thread}"}`;
    yield '{"type":"turn.started"}';
    let item = 0;
    const rounds = 2 + Math.floor(rand() * 6);
    for (let r = 0; r < rounds; r++) {
      yield `{"type":"item.completed","item":{"id":"item_${item++}","type":"reasoning","text":${q(`**${text(20, 60)}**`)}}}`;
      if (rand() < 0.5)
        yield `{"type":"item.completed","item":{"id":"item_${item++}","type":"agent_message","text":${q(text(40, 300))},"phase":"commentary"}}`;
      const id = `item_${item++}`;
      const command = q(`bash -lc ${q(text(8, 40))}`);
      yield `{"type":"item.started","item":{"id":"${id}","type":"command_execution","command":${command},"aggregated_output":"","exit_code":null,"status":"in_progress"}}`;
      const ok = rand() < 0.9;
      yield `{"type":"item.completed","item":{"id":"${id}","type":"command_execution","command":${command},"aggregated_output":${q(text(200, 2000))},"exit_code":${ok ? 0 : 1},"status":"${ok ? 'completed' : 'failed'}"}}`;
      if (rand() < 0.2)
        yield `{"type":"item.completed","item":{"id":"item_${item++}","type":"file_change","changes":[{"path":"src/${text(3, 12).replace(/\W/g, '_')}.ts","kind":"update"}],"status":"completed"}}`;
      if (rand() < 0.15)
        yield `{"type":"item.updated","item":{"id":"item_todo","type":"todo_list","items":[{"text":${q(text(10, 40))},"completed":true},{"text":${q(text(10, 40))},"completed":false}]}}`;
    }
    yield `{"type":"item.completed","item":{"id":"item_${item++}","type":"agent_message","text":${q(text(100, 1500))},"phase":"final_answer"}}`;
    total[0] += 8000 + Math.floor(rand() * 20000);
    total[1] += Math.floor(rand() * 6000);
    total[2] += 50 + Math.floor(rand() * 2000);
    total[3] += Math.floor(rand() * 500);
    yield `{"type":"turn.completed","usage":{"input_tokens":${total[0]},"cached_input_tokens":${total[1]},"cache_write_input_tokens":0,"output_tokens":${total[2]},"reasoning_output_tokens":${total[3]}}}`;
  }
}

/** A Codex corpus of about `mb` MiB (whole lines). */
export function generateCodex({ mb = 100, seed = 1 } = {}) {
  const parts = [];
  let size = 0;
  let piece = '';
  for (const line of codexLines(seed)) {
    piece += `${line}\n`;
    if (piece.length > 1 << 20) {
      parts.push(Buffer.from(piece));
      size += parts.at(-1).length;
      piece = '';
      if (size >= mb * 1024 * 1024) break;
    }
  }
  return { buffer: Buffer.concat(parts) };
}

/**
 * One Claude Code stream-json session shaped like the captures (`../shared/captures/claude-code/`):
 * an init, then turns of thinking / tool_use / text `assistant` lines (one per content block, each
 * repeating its message's id and usage), `user` tool results of 500 B–40 KB (a few of 200 KB),
 * small `thinking_tokens` and `rate_limit_event` lines, a `result` every 20 messages. Every line is
 * a `JSON.stringify` of its record, as the CLI writes them.
 */
export function generateClaude({ mb = 50, seed = 7 } = {}) {
  const lines = [];
  let bytes = 0;
  for (const group of claudeGroups(seed)) {
    for (const text of group) {
      lines.push(text);
      bytes += Buffer.byteLength(text) + 1;
    }
    if (bytes >= mb * 1e6) break;
  }
  const text = `${lines.join('\n')}\n`;
  return { buffer: Buffer.from(text), lines: lines.length };
}

/**
 * The lines of {@link generateClaude}'s session, forever, in groups: the first init, then the lines
 * of one message each (a stream cut after any group is a whole session prefix).
 */
export function* claudeGroups(seed = 7) {
  const rnd = prng(seed);
  const words = (n) => {
    let s = '';
    for (let i = 0; i < n; i++) s += `${ASCII_WORDS[Math.floor(rnd() * ASCII_WORDS.length)]} `;
    return s;
  };
  const sid = '5f0c2a8e-7d1b-4c3e-9a6f-0b1d2c3e4f50';
  let uuid = 0;
  const u = () => `8e1f${String(++uuid).padStart(8, '0')}-1111-4222-8333-444455556666`;
  let lines = [];
  const push = (record) => {
    lines.push(JSON.stringify(record));
  };
  const init = () =>
    push({
      type: 'system',
      subtype: 'init',
      cwd: '/repo',
      session_id: sid,
      tools: ['Task', 'Bash', 'Read', 'Edit'],
      mcp_servers: [],
      model: 'claude-sonnet-4-5',
      permissionMode: 'default',
      claude_code_version: '2.1.284',
      uuid: u(),
    });
  const usage = (i) => ({
    input_tokens: 10,
    cache_creation_input_tokens: 300 + (i % 97),
    cache_read_input_tokens: 12000 + i,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 300 + (i % 97) },
    output_tokens: 1 + (i % 8),
    service_tier: 'standard',
    inference_geo: 'not_available',
  });
  const assistant = (id, block, us) =>
    push({
      type: 'assistant',
      message: {
        model: 'claude-sonnet-4-5',
        id,
        type: 'message',
        role: 'assistant',
        content: [block],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: us,
        diagnostics: null,
        context_management: null,
      },
      parent_tool_use_id: null,
      session_id: sid,
      uuid: u(),
      timestamp: '2026-10-01T09:00:00.000Z',
      request_id: `req_${id}`,
    });
  init();
  yield lines;
  let m = 0;
  for (;;) {
    lines = [];
    m++;
    const id = `msg_bench_${m}`;
    const us = usage(m);
    push({
      type: 'system',
      subtype: 'thinking_tokens',
      estimated_tokens: 50 * m,
      estimated_tokens_delta: 50,
      session_id: sid,
      uuid: u(),
    });
    assistant(id, { type: 'thinking', thinking: words(20), signature: 'EqQDCkYIBxgCKkB'.repeat(20) }, us);
    if (rnd() < 0.7) {
      const call = `toolu_bench_${m}`;
      assistant(
        id,
        { type: 'tool_use', id: call, name: 'Read', input: { file_path: `/repo/src/f${m}.ts` } },
        us,
      );
      const size = rnd() < 0.03 ? 200000 : 500 + Math.floor(rnd() * 40000);
      const content = words(Math.ceil(size / 6));
      push({
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: call, type: 'tool_result', content }] },
        parent_tool_use_id: null,
        session_id: sid,
        uuid: u(),
        timestamp: '2026-10-01T09:00:01.000Z',
        tool_use_result: {
          type: 'text',
          file: { filePath: `/repo/src/f${m}.ts`, numLines: 40, startLine: 1, totalLines: 40 },
        },
      });
    } else assistant(id, { type: 'text', text: words(40) }, us);
    if (m % 10 === 0)
      push({
        type: 'rate_limit_event',
        rate_limit_info: {
          status: 'allowed',
          resetsAt: 1790678400,
          rateLimitType: 'five_hour',
          overageStatus: 'rejected',
          isUsingOverage: false,
        },
        uuid: u(),
        session_id: sid,
      });
    if (m % 20 === 0) {
      push({
        type: 'result',
        subtype: 'success',
        is_error: false,
        duration_ms: 5230,
        duration_api_ms: 4210,
        num_turns: 20,
        result: words(10),
        stop_reason: 'end_turn',
        session_id: sid,
        total_cost_usd: 0.054201000000000006,
        usage: usage(m),
        modelUsage: {},
        permission_denials: [],
        uuid: u(),
      });
      init();
    }
    yield lines;
  }
}
