import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAt } from '../../diagnostics';
import type { AgentEvent } from '../../model';
import { RecentSet } from '../../recent';

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
  return runRules(aiSdkRules, events);
}

/**
 * The rules of {@link checkAiSdkEvents}, one event at a time: what it keeps is the open parts and
 * the calls of the current message (a `start` chunk clears them).
 */
export function aiSdkRules(): EventChecker {
  const text = new Set<string>();
  const reasoning = new Set<string>();
  const inputs = new Set<string>();
  // Every call of the message, not only the open ones (an output may come late): the last
  // RECENT_LIMIT, so a message of any length is checked in bounded memory.
  const calls = new RecentSet<string>();
  const push = (e: AgentEvent): Diagnostic[] => {
    const out: Diagnostic[] = [];
    const p = e.provenance;
    if (p === undefined) return out;
    const at = (what: string) => out.push(diagnosticAt('order', 'error', p.line, p.offset, what, 'ai-sdk'));
    if (p.synthetic) {
      if (e.type === 'run.start')
        out.push(diagnosticAt('order', 'warning', p.line, p.offset, 'a run without a start chunk', 'ai-sdk'));
      return out;
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
        if (!calls.has(call) && !calls.forgot)
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
    return out;
  };
  return { push, end: () => [] };
}
