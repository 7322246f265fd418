// The sections of docs/benchmarks.md that whole-process scripts write, each between its markers:
// "Peak RSS of every conversion" (bench/cli-rss.mjs results, written by hand from its output) and
// "CLI against jq" (written by bench/cli-jq.mjs; minutes per format). The scripts that rewrite the
// page from a run (run.mjs, three.mjs) keep both as they are.
import { existsSync, readFileSync } from 'node:fs';

export const RSS_START = '<!-- cli-rss:start -->';
export const RSS_END = '<!-- cli-rss:end -->';
export const CLI_START = '<!-- cli-jq:start -->';
export const CLI_END = '<!-- cli-jq:end -->';

function kept(old, start, end) {
  const i = old.indexOf(start);
  const j = old.indexOf(end);
  return i === -1 || j === -1 ? '' : `\n${old.slice(i, j)}${end}\n`;
}

/** The kept sections as `path` has them now (each with its markers, a blank line before), or ''. */
export function keptCliSection(path) {
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
  return kept(old, RSS_START, RSS_END) + kept(old, CLI_START, CLI_END);
}
