import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAtEvent } from '../../diagnostics';
import type { AgentEvent } from '../../model';

/**
 * Checks decoded Codex events against what `codex exec --json` itself guarantees, beyond each
 * line's own rules (which the decoder reports): every turn ends in `turn.completed` or
 * `turn.failed` (a turn without one is incomplete, even when the process exited 0); a new turn
 * does not start inside an open one; a tool item that started ends before its turn does.
 * Returns `order` diagnostics naming lines.
 */
export function checkCodexEvents(events: readonly AgentEvent[]): Diagnostic[] {
  return runRules(codexRules, events);
}

/**
 * The rules of {@link checkCodexEvents}, one event at a time: what it keeps is the open turn and
 * its open items.
 */
export function codexRules(): EventChecker {
  let out: Diagnostic[] = [];
  const at = (e: AgentEvent, severity: Diagnostic['severity'], what: string): void => {
    out.push(diagnosticAtEvent('order', severity, e, what, 'codex'));
  };
  let turn: AgentEvent | undefined;
  const open = new Map<string, AgentEvent>();
  const push = (e: AgentEvent): Diagnostic[] => {
    out = [];
    if (e.provenance !== undefined && e.provenance.format !== 'codex') return out;
    switch (e.type) {
      case 'run.start':
        turn = e;
        break;
      case 'run.end':
        if (e.status === 'incomplete' && e.provenance?.synthetic) {
          at(
            turn ?? e,
            'error',
            'this turn has no turn.completed or turn.failed: it is incomplete (the process died, hit a limit, or is still running)',
          );
        }
        for (const [call, start] of open)
          at(
            start,
            'warning',
            `item ${JSON.stringify(call)} started but never completed before its turn ended`,
          );
        open.clear();
        turn = undefined;
        break;
      case 'tool.start':
        if (!e.provenance?.synthetic) {
          if (open.has(e.call)) at(e, 'warning', `item ${JSON.stringify(e.call)} started twice`);
          open.set(e.call, e);
        }
        break;
      case 'tool.end':
        open.delete(e.call);
        break;
    }
    return out;
  };
  return { push, end: () => [] };
}
