import { writeFileSync } from 'node:fs';

/**
 * Writes to `path` a Claude stream-json file of `count` tool calls, call `i` answered by a tool
 * result whose content is `content(i)` (the long outputs the CLI suites write out), and returns
 * `path`.
 */
export function writeClaudeToolOutputs(path: string, count: number, content: (i: number) => string): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `toolu_${i}`;
    const use = { type: 'tool_use', id, name: 'Read', input: { file_path: `/f${i}` } };
    const message = { id: `msg_${i}`, type: 'message', role: 'assistant', content: [use], usage: {} };
    const result = { type: 'tool_result', content: content(i), tool_use_id: id };
    lines.push(JSON.stringify({ type: 'assistant', message, session_id: 's', uuid: `a${i}` }));
    lines.push(JSON.stringify({ type: 'user', message: { role: 'user', content: [result] }, uuid: `u${i}` }));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
