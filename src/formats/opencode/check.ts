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
  const out: Diagnostic[] = [];
  const open = new Map<string, AgentEvent>();
  for (const e of events) {
    const p = e.provenance;
    if (p === undefined) continue;
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
  }
  for (const e of open.values()) out.push(at(e, 'warning', 'a step_start without its step_finish'));
  return out;
}

function at(e: AgentEvent, severity: Diagnostic['severity'], what: string): Diagnostic {
  const p = e.provenance!;
  const d = diagnosticAt('order', severity, p.line, p.offset, what, 'opencode');
  return d;
}
