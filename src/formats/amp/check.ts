import { type Diagnostic, diagnosticAtEvent } from '../../diagnostics';
import type { AgentEvent } from '../../model';

/**
 * Checks decoded Amp events against what stream-json promises: `system/init` first, one thread id
 * (`session_id`) throughout, every `tool_result` answering a `tool_use` of an earlier assistant
 * line, every call answered, and each run closed by a `result`. Returns `order` diagnostics.
 */
export function checkAmpEvents(events: readonly AgentEvent[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (e: AgentEvent, severity: Diagnostic['severity'], what: string) =>
    out.push(diagnosticAtEvent('order', severity, e, what, 'amp'));
  const calls = new Set<string>();
  let session: string | undefined;
  let first = true;
  let last: AgentEvent | undefined;
  let lastLine = 0;
  for (const e of events) {
    const p = e.provenance;
    if (p?.format !== 'amp') continue;
    if (p.synthetic === true) {
      if (e.type === 'run.end' && e.status === 'incomplete')
        at(e, 'warning', 'the stream ends inside a run: no result line closed it');
      continue;
    }
    last = e;
    if (e.type === 'tool.start') calls.add(e.call);
    if (e.type === 'tool.end' && !calls.delete(e.call))
      at(e, 'warning', `tool_result for ${JSON.stringify(e.call)}, which no earlier tool_use began`);
    // The rest is about lines: looked at once, on a line's first event.
    if (p.line === lastLine) continue;
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
  }
  if (last !== undefined)
    for (const call of calls) at(last, 'warning', `tool_use ${JSON.stringify(call)} never got a tool_result`);
  return out;
}
