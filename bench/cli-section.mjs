// The "CLI against jq" section of docs/benchmarks.md is written by bench/cli-jq.mjs (whole
// processes, minutes per format), between these markers; the scripts that rewrite the page
// (run.mjs, three.mjs) keep it as it is.
import { existsSync, readFileSync } from 'node:fs';

export const CLI_START = '<!-- cli-jq:start -->';
export const CLI_END = '<!-- cli-jq:end -->';

/** The section as `path` has it now (with its markers, a blank line before), or ''. */
export function keptCliSection(path) {
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const i = old.indexOf(CLI_START);
  const j = old.indexOf(CLI_END);
  return i === -1 || j === -1 ? '' : `\n${old.slice(i, j)}${CLI_END}\n`;
}
