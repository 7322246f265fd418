import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAtEvent } from '../../diagnostics';
import { isJsonObject } from '../../json';
import type { AgentEvent } from '../../model';
import { RecentSet } from '../../recent';
import { type CopilotHints, isCopilotEnvelope } from './wire';

// What a request is called, by its record type's first letter.
const ASKED: Record<string, string> = { p: 'permission request', u: 'user input request' };

/**
 * Checks decoded Copilot events against what the session event schema promises: unique event
 * ids, each `parentId` naming an earlier event, `session.start` first, turns opened before they
 * end, tool executions, subagents, permission and user input requests completed only after they
 * began, and a run that reaches `session.idle` (or the session's `session.shutdown`). Returns
 * `order` diagnostics by line.
 */
export function checkCopilotEvents(events: readonly AgentEvent[]): Diagnostic[] {
  return runRules(copilotRules, events);
}

/**
 * The rules of {@link checkCopilotEvents}, one event at a time: what it keeps is the open turns,
 * tool executions, subagents and requests, and the ids of the last `RECENT_LIMIT` (65,536) events: a duplicate
 * id or a `parentId` is judged against those (the bounded form of "every earlier event"; once
 * an id was forgotten, a `parentId` not among them is not reported, since it may name one).
 */
export function copilotRules(): EventChecker {
  let out: Diagnostic[] = [];
  const at = (e: AgentEvent, severity: Diagnostic['severity'], what: string) =>
    out.push(diagnosticAtEvent('order', severity, e, what, 'copilot'));
  const ids = new RecentSet<string>();
  const tools = new Set<string>();
  const subagents = new Set<string>();
  const turns = new Set<string>();
  // Open permission and user input requests, by request id (`p` or `u` first: the two are apart).
  const asks = new Set<string>();
  let records = 0;
  let last: AgentEvent | undefined;
  const push = (e: AgentEvent): Diagnostic[] => {
    out = [];
    const p = e.provenance;
    if (p?.format !== 'copilot') return out;
    if (p.synthetic === true) {
      if (e.type === 'run.end' && e.status === 'incomplete')
        at(e, 'warning', 'a run ends incomplete: no session.idle closed it');
      return out;
    }
    last = e;
    const h = (p.hints ?? {}) as CopilotHints;
    const record = h.record ?? (e.type === 'unknown' && isJsonObject(e.record) ? e.record : undefined);
    const env = isCopilotEnvelope(record) ? record : undefined;
    const type = env?.type;
    const id = env?.id;
    const parent = env?.parentId;
    records++;
    if (id !== undefined) {
      if (ids.has(id)) at(e, 'error', `event id ${JSON.stringify(id)} was used before`);
      ids.add(id);
    }
    if (typeof parent === 'string' && !ids.has(parent) && !ids.forgot)
      at(e, 'warning', `parentId ${JSON.stringify(parent)} names no earlier event`);
    if (type === 'session.start' && records > 1) at(e, 'error', 'session.start is not the first event');
    const d = env?.data ?? {};
    const call = typeof d.toolCallId === 'string' ? d.toolCallId : undefined;
    switch (type) {
      case 'assistant.turn_start': {
        const key = `${e.lane ?? ''}\u0000${String(d.turnId)}`;
        if (turns.has(key)) at(e, 'error', `turn ${JSON.stringify(d.turnId)} starts again before it ended`);
        turns.add(key);
        break;
      }
      case 'assistant.turn_end': {
        const key = `${e.lane ?? ''}\u0000${String(d.turnId)}`;
        if (!turns.delete(key)) at(e, 'error', `turn ${JSON.stringify(d.turnId)} ends but never started`);
        break;
      }
      case 'tool.execution_start':
        if (call !== undefined) tools.add(call);
        break;
      case 'tool.execution_complete':
        if (call !== undefined && !tools.delete(call))
          at(
            e,
            'warning',
            `tool call ${JSON.stringify(call)} completes but no tool.execution_start began it`,
          );
        break;
      case 'subagent.started':
        if (call !== undefined) subagents.add(call);
        break;
      case 'subagent.completed':
      case 'subagent.failed':
        if (call !== undefined && !subagents.delete(call))
          at(e, 'warning', `subagent of tool call ${JSON.stringify(call)} ends but never started`);
        break;
      case 'permission.requested':
      case 'user_input.requested':
        if (typeof d.requestId === 'string') asks.add(type[0] + d.requestId);
        break;
      case 'permission.completed':
      case 'user_input.completed':
        if (typeof d.requestId === 'string' && !asks.delete(type[0] + d.requestId))
          at(
            e,
            'warning',
            `${ASKED[type[0]!]} ${JSON.stringify(d.requestId)} completes but was never requested`,
          );
        break;
    }
    return out;
  };
  const end = (): Diagnostic[] => {
    out = [];
    if (last !== undefined) {
      for (const call of tools) at(last, 'warning', `tool call ${JSON.stringify(call)} never completed`);
      for (const call of subagents)
        at(last, 'warning', `subagent of tool call ${JSON.stringify(call)} never ended`);
      for (const ask of asks)
        at(last, 'warning', `${ASKED[ask[0]!]} ${JSON.stringify(ask.slice(1))} never completed`);
    }
    return out;
  };
  return { push, end };
}
