import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAtEvent } from '../../diagnostics';
import type { AgentEvent } from '../../model';

/**
 * Checks decoded Amp events against what stream-json promises: `system/init` first, one thread id
 * (`session_id`) throughout, every `tool_result` answering a `tool_use` of an earlier assistant
 * line, every call answered, and each run closed by a `result`. Returns `order` diagnostics.
 */
export function checkAmpEvents(events: readonly AgentEvent[]): Diagnostic[] {
  return runRules(ampRules, events);
}

/**
 * The rules of {@link checkAmpEvents}, one event at a time: what it keeps is the open calls, the
 * thread id and the last event (where unanswered calls are reported at the end).
 */
export function ampRules(): EventChecker {
  let out: Diagnostic[] = [];
  const at = (e: AgentEvent, severity: Diagnostic['severity'], what: string) =>
    out.push(diagnosticAtEvent('order', severity, e, what, 'amp'));
  const calls = new Set<string>();
  let session: string | undefined;
  let first = true;
  let last: AgentEvent | undefined;
  let lastLine = 0;
  const push = (e: AgentEvent): Diagnostic[] => {
    out = [];
    const p = e.provenance;
    if (p?.format !== 'amp') return out;
    if (p.synthetic === true) {
      if (e.type === 'run.end' && e.status === 'incomplete')
        at(e, 'warning', 'the stream ends inside a run: no result line closed it');
      return out;
    }
    last = e;
    if (e.type === 'tool.start') calls.add(e.call);
    if (e.type === 'tool.end' && !calls.delete(e.call))
      at(e, 'warning', `tool_result for ${JSON.stringify(e.call)}, which no earlier tool_use began`);
    // The rest is about lines: looked at once, on a line's first event.
    if (p.line === lastLine) return out;
    lastLine = p.line;
    if (first && e.type !== 'session.start' && e.type !== 'unknown')
      at(e, 'warning', 'the stream does not begin with system/init');
    first = false;
    if (e.session !== undefined) {
      if (session !== undefined && e.session !== session)
        at(
          e,
          'error',
          `session_id ${JSON.stringify(e.session)} differs from the thread's ${JSON.stringify(session)}`,
        );
      session ??= e.session;
    }
    return out;
  };
  const end = (): Diagnostic[] => {
    out = [];
    if (last !== undefined)
      for (const call of calls)
        at(last, 'warning', `tool_use ${JSON.stringify(call)} never got a tool_result`);
    return out;
  };
  return { push, end };
}
