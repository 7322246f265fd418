import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAtEvent } from '../../diagnostics';
import type { AgentEvent } from '../../model';
import { CLAUDE_FORMAT } from './wire';

/**
 * Checks decoded Claude events against the stream's own rules, beyond each line's (which the
 * decoder reports): `system/init` comes before the first turn; every `tool_use` is answered by a
 * `tool_result` before its run's `result`; one `result` per run (a `system/init` starts a new
 * run, as the decoder reads it: a `result` right after another one, with no init nor turn between,
 * is a second one); the lines of one message (`message.id`) repeat one usage figure. Returns
 * `order` diagnostics naming lines.
 */
export function checkClaudeEvents(events: readonly AgentEvent[]): Diagnostic[] {
  return runRules(claudeRules, events);
}

/**
 * The rules of {@link checkClaudeEvents}, one event at a time: what it keeps is the run's open
 * calls and the usage keys of its messages (a `result` clears both).
 */
export function claudeRules(): EventChecker {
  let out: Diagnostic[] = [];
  const at = (e: AgentEvent, severity: Diagnostic['severity'], what: string): void => {
    out.push(diagnosticAtEvent('order', severity, e, what, CLAUDE_FORMAT));
  };
  let sawInit = false;
  let reportedInit = false;
  const open = new Map<string, AgentEvent>();
  let contentSinceResult = true;
  // The line that opened the current run: the decoder opens one at a `system/init` or at the
  // first turn line after a `result`, and only a `result` with neither before it opens its own
  // run on its own line (`result` directly after `result`: a second result for one run).
  let runLine: number | undefined;
  const partials = new Map<string, number>();
  const push = (e: AgentEvent): Diagnostic[] => {
    out = [];
    if (e.provenance !== undefined && e.provenance.format !== CLAUDE_FORMAT) return out;
    switch (e.type) {
      case 'session.start':
        sawInit = true;
        return out;
      case 'message.start':
      case 'user.message':
      case 'tool.end':
        if (!sawInit && !reportedInit) {
          at(e, 'error', 'a turn before system/init (init comes first)');
          reportedInit = true;
        }
        break;
      default:
        break;
    }
    if (e.type === 'run.start') runLine = e.provenance?.line;
    else if (e.type === 'tool.start') open.set(e.call, e);
    else if (e.type === 'tool.end') open.delete(e.call);
    else if (e.type === 'usage' && e.usage.final === false && e.usage.key !== undefined) {
      const n = (partials.get(e.usage.key) ?? 0) + 1;
      partials.set(e.usage.key, n);
      if (n === 2) at(e, 'warning', `the lines of message ${e.usage.key} carry different usage`);
    } else if (e.type === 'run.end') {
      if (e.provenance?.synthetic === true) {
        open.clear();
        return out;
      }
      if (!contentSinceResult && runLine === e.provenance?.line)
        at(e, 'error', 'a second result for one run');
      for (const [call, start] of open)
        at(start, 'error', `tool_use ${JSON.stringify(call)} has no tool_result before its run's result`);
      open.clear();
      partials.clear();
      contentSinceResult = false;
      runLine = undefined;
      return out;
    }
    if (e.provenance?.synthetic !== true && e.type !== 'notice' && e.type !== 'unknown')
      contentSinceResult = true;
    return out;
  };
  return { push, end: () => [] };
}
