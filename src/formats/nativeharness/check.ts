import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAtEvent } from '../../diagnostics';
import type { AgentEvent } from '../../model';
import { RecentSet } from '../../recent';
import { NH as FORMAT } from './wire';

interface TurnState {
  hop: number;
  tools: Map<string, 'started' | 'ended'>;
  approvals: Map<string, 'required' | 'resolved'>;
}

/**
 * Checks decoded nativeharness events against the protocol's ordering rules
 * (`docs/protocols/nativeharness.md`): the log starts with `session_created`; a turn's events
 * come after its `turn_started` and before its one `done`; hops do not go back; `output` and
 * `tool_result` belong to a started call, each call ends before `done`; `approval_resolved`
 * answers a pending `approval_required`; `child_done` follows its `child_started`. `seq` order
 * and every schema are the decoder's own findings. Returns `order` diagnostics naming lines.
 */
export function checkNativeharnessEvents(events: readonly AgentEvent[]): Diagnostic[] {
  return runRules(nativeharnessRules, events);
}

/**
 * The rules of {@link checkNativeharnessEvents}, one event at a time: what it keeps is the open
 * turns (with their calls and approvals), the open children, and the ids of the last
 * `RECENT_LIMIT` (65,536) turns that ended: an event of a turn after its `done` is judged against
 * those (the bounded form of "every earlier turn"; a turn's calls are dropped at its `done`).
 */
export function nativeharnessRules(): EventChecker {
  let out: Diagnostic[] = [];
  const at = (e: AgentEvent, severity: Diagnostic['severity'], message: string): void => {
    out.push(diagnosticAtEvent('order', severity, e, message, FORMAT));
  };
  const turns = new Map<string, TurnState>();
  const done = new RecentSet<string>();
  const children = new Set<string>();
  let sawSession = false;
  let first = true;

  const push = (e: AgentEvent): Diagnostic[] => {
    out = [];
    if (e.provenance?.synthetic || e.type === 'unknown') return out;
    if (first && e.type !== 'session.start') at(e, 'error', 'the log does not start with session_created');
    first = false;
    if (e.type === 'session.start') {
      if (sawSession) at(e, 'error', 'a second session_created in one session');
      sawSession = true;
      return out;
    }
    const run = e.run;
    if (e.type === 'run.start') {
      if (run === undefined) return out;
      if (turns.has(run) || done.has(run))
        at(e, 'error', `turn_started for turn ${JSON.stringify(run)}, which already started`);
      done.delete(run);
      turns.set(run, { hop: 0, tools: new Map(), approvals: new Map() });
      return out;
    }
    if (run === undefined) return out; // session-level events
    const turn = turns.get(run);
    if (turn === undefined) {
      if (done.has(run)) {
        at(e, 'error', `an event of turn ${JSON.stringify(run)} after its done`);
        return out;
      }
      at(e, 'error', `an event of turn ${JSON.stringify(run)} before its turn_started`);
      turns.set(run, { hop: 0, tools: new Map(), approvals: new Map() });
      return out;
    }
    // Only events whose payload carries `hop` (others take the turn's last hop from the decoder).
    const carriesHop =
      e.type === 'text.delta' || e.type === 'tool.start' || e.type === 'tool.end' || e.type === 'round.end';
    if (carriesHop && e.round !== undefined) {
      if (e.round < turn.hop) at(e, 'error', `hop ${e.round} after hop ${turn.hop} of the same turn`);
      else turn.hop = e.round;
    }
    switch (e.type) {
      case 'tool.start':
        if (turn.tools.has(e.call)) at(e, 'error', `tool_started again for call ${JSON.stringify(e.call)}`);
        turn.tools.set(e.call, 'started');
        break;
      case 'tool.output':
        if (turn.tools.get(e.call) !== 'started') {
          at(e, 'error', `output for call ${JSON.stringify(e.call)}, which is not running`);
        }
        break;
      case 'tool.end':
        if (turn.tools.get(e.call) !== 'started') {
          at(e, 'error', `tool_result for call ${JSON.stringify(e.call)}, which is not running`);
        }
        turn.tools.set(e.call, 'ended');
        break;
      case 'approval.request':
        turn.approvals.set(e.approval, 'required');
        break;
      case 'approval.resolve':
        if (turn.approvals.get(e.approval) !== 'required') {
          at(e, 'error', `approval_resolved for ${JSON.stringify(e.approval)}, which is not pending`);
        }
        turn.approvals.set(e.approval, 'resolved');
        break;
      case 'child.start':
        children.add(e.child);
        break;
      case 'child.end':
        if (!children.delete(e.child))
          at(e, 'error', `child_done for ${JSON.stringify(e.child)} without child_started`);
        break;
      case 'run.end': {
        // Done: only that it is done is kept (an event after it is an error).
        turns.delete(run);
        done.add(run);
        for (const [call, state] of turn.tools) {
          if (state === 'started')
            at(e, 'warning', `done while call ${JSON.stringify(call)} has no tool_result`);
        }
        for (const [id, state] of turn.approvals) {
          if (state === 'required')
            at(e, 'warning', `done while approval ${JSON.stringify(id)} is unresolved`);
        }
        break;
      }
    }
    return out;
  };
  return { push, end: () => [] };
}
