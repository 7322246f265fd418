import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAt } from '../../diagnostics';
import type { AgentEvent } from '../../model';

/**
 * Checks decoded Cursor events against what a consumer of `cursor-agent --output-format
 * stream-json` relies on, beyond each line's own rules (which the decoder reports): every
 * `tool_call/started` gets its `/completed` (a reconnect is known to lose it), and a run ends
 * with its `result` (on failure Cursor writes none: the run is incomplete). Returns `order`
 * diagnostics naming lines.
 */
export function checkCursorEvents(events: readonly AgentEvent[]): Diagnostic[] {
  const out = runRules(cursorRules, events);
  out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return out;
}

/**
 * The rules of {@link checkCursorEvents}, one event at a time: what it keeps is the open calls.
 * The calls never completed are found at the end (in line order there).
 */
export function cursorRules(): EventChecker {
  const open = new Map<string, AgentEvent>();
  const push = (e: AgentEvent): Diagnostic[] => {
    const out: Diagnostic[] = [];
    const p = e.provenance;
    if (p === undefined) return out;
    if (e.type === 'tool.start') open.set(e.call, e);
    else if (e.type === 'tool.end') {
      if (!open.delete(e.call))
        out.push(at(e, `tool_call/completed for ${JSON.stringify(e.call)} without its started record`));
    } else if (e.type === 'run.end' && p.synthetic && e.status === 'incomplete') {
      out.push(at(e, 'the stream ends without a result record: the run is incomplete'));
    }
    return out;
  };
  const end = (): Diagnostic[] => {
    const out: Diagnostic[] = [];
    for (const e of open.values()) {
      out.push(
        at(e, `tool_call/started for ${JSON.stringify((e as { call: string }).call)} never completed`),
      );
    }
    return out;
  };
  return { push, end };
}

function at(e: AgentEvent, what: string): Diagnostic {
  const p = e.provenance!;
  return diagnosticAt('order', 'warning', p.line, p.offset, what, 'cursor');
}
