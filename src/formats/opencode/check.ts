import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAt } from '../../diagnostics';
import type { AgentEvent } from '../../model';

/**
 * Checks decoded OpenCode events against what a consumer of `opencode run --format json` relies
 * on, beyond each line's own rules (which the decoder reports): every `step_start` is closed by a
 * `step_finish` before the next one of its session; a stream ends with `done` (newer builds) or a
 * step that stopped (`reason: "stop"`, older builds); a `tool_use` is a finished call
 * (`completed` or `error`). Returns `order` diagnostics naming lines.
 */
export function checkOpencodeEvents(events: readonly AgentEvent[]): Diagnostic[] {
  return runRules(opencodeRules, events);
}

/**
 * The rules of {@link checkOpencodeEvents}, one event at a time: what it keeps is the open step
 * of each session.
 */
export function opencodeRules(): EventChecker {
  const open = new Map<string, AgentEvent>();
  const push = (e: AgentEvent): Diagnostic[] => {
    const out: Diagnostic[] = [];
    const p = e.provenance;
    if (p === undefined) return out;
    const lane = e.lane ?? '';
    if (e.type === 'round.start') {
      const before = open.get(lane);
      if (before !== undefined) {
        out.push(at(before, 'warning', 'a step_start without its step_finish (the next step started)'));
      }
      open.set(lane, e);
    } else if (e.type === 'round.end') open.delete(lane);
    else if (e.type === 'tool.end' && !p.synthetic) {
      const record = (p.hints as { record?: { part?: { state?: { status?: unknown } } } } | undefined)
        ?.record;
      const status = record?.part?.state?.status;
      if (status !== 'completed' && status !== 'error') {
        out.push(
          at(
            e,
            'warning',
            `a tool_use with state.status ${JSON.stringify(status)}: OpenCode writes only finished calls`,
          ),
        );
      }
    } else if (e.type === 'run.end' && p.synthetic && e.status === 'incomplete') {
      out.push(
        at(
          e,
          'warning',
          'the stream ends without done and its last step did not stop: the run is incomplete',
        ),
      );
    }
    return out;
  };
  const end = (): Diagnostic[] => {
    const out: Diagnostic[] = [];
    for (const e of open.values()) out.push(at(e, 'warning', 'a step_start without its step_finish'));
    return out;
  };
  return { push, end };
}

function at(e: AgentEvent, severity: Diagnostic['severity'], what: string): Diagnostic {
  const p = e.provenance!;
  const d = diagnosticAt('order', severity, p.line, p.offset, what, 'opencode');
  return d;
}
