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
  const out: Diagnostic[] = [];
  const open = new Map<string, AgentEvent>();
  for (const e of events) {
    const p = e.provenance;
    if (p === undefined) continue;
    if (e.type === 'tool.start') open.set(e.call, e);
    else if (e.type === 'tool.end') {
      if (!open.delete(e.call))
        out.push(at(e, `tool_call/completed for ${JSON.stringify(e.call)} without its started record`));
    } else if (e.type === 'run.end' && p.synthetic && e.status === 'incomplete') {
      out.push(at(e, 'the stream ends without a result record: the run is incomplete'));
    }
  }
  for (const e of open.values()) {
    out.push(at(e, `tool_call/started for ${JSON.stringify((e as { call: string }).call)} never completed`));
  }
  out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return out;
}

function at(e: AgentEvent, what: string): Diagnostic {
  const p = e.provenance!;
  return diagnosticAt('order', 'warning', p.line, p.offset, what, 'cursor');
}
