import { type Diagnostic, diagnosticAt } from '../../diagnostics';
import type { AgentEvent } from '../../model';

type Record_ = { type?: string; id?: string; toolCallId?: string };

function recordOf(e: AgentEvent): Record_ | undefined {
  const r = (e.provenance?.hints as { record?: unknown } | undefined)?.record;
  return typeof r === 'object' && r !== null ? (r as Record_) : undefined;
}

/**
 * Checks decoded AI SDK chunks against what the `ai` package's reader (`readUIMessageStream`)
 * requires, beyond each chunk's own fields (which the decoder reports): a text or reasoning
 * part is started before its deltas and its end, a tool call's input is started before its
 * deltas, an output or approval names a call the message has, and a run opens with `start`.
 * Returns `order` diagnostics naming lines.
 */
export function checkAiSdkEvents(events: readonly AgentEvent[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const text = new Set<string>();
  const reasoning = new Set<string>();
  const inputs = new Set<string>();
  const calls = new Set<string>();
  for (const e of events) {
    const p = e.provenance;
    if (p === undefined) continue;
    const at = (what: string) => out.push(diagnosticAt('order', 'error', p.line, p.offset, what, 'ai-sdk'));
    if (p.synthetic) {
      if (e.type === 'run.start')
        out.push(diagnosticAt('order', 'warning', p.line, p.offset, 'a run without a start chunk', 'ai-sdk'));
      continue;
    }
    const r = recordOf(e);
    const id = r?.id ?? '';
    const call = r?.toolCallId ?? '';
    switch (r?.type) {
      case 'text-start':
        text.add(id);
        break;
      case 'text-delta':
        if (!text.has(id)) at(`text-delta for part ${JSON.stringify(id)}, not started`);
        break;
      case 'text-end':
        if (!text.delete(id)) at(`text-end for part ${JSON.stringify(id)}, not started`);
        break;
      case 'reasoning-start':
        reasoning.add(id);
        break;
      case 'reasoning-delta':
        if (!reasoning.has(id)) at(`reasoning-delta for part ${JSON.stringify(id)}, not started`);
        break;
      case 'reasoning-end':
        if (!reasoning.delete(id)) at(`reasoning-end for part ${JSON.stringify(id)}, not started`);
        break;
      case 'tool-input-start':
        inputs.add(call);
        calls.add(call);
        break;
      case 'tool-input-delta':
        if (!inputs.has(call)) at(`tool-input-delta for call ${JSON.stringify(call)}, not started`);
        break;
      case 'tool-input-available':
      case 'tool-input-error':
        calls.add(call);
        break;
      case 'tool-output-available':
      case 'tool-output-error':
      case 'tool-output-denied':
      case 'tool-approval-request':
        if (!calls.has(call))
          at(`${r.type} for call ${JSON.stringify(call)}, which the message does not have`);
        break;
      case 'start':
        text.clear();
        reasoning.clear();
        inputs.clear();
        calls.clear();
        break;
      default:
        break;
    }
  }
  return out;
}
