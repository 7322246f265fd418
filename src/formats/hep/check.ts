import { isBounded } from '../../bounds';
import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAtEvent } from '../../diagnostics';
import type { AgentEvent } from '../../model';
import { RecentSet } from '../../recent';
import { HEP as FORMAT, HEP_FULL_ARGS_CAP, HEP_SUMMARY_ARGS_CAP, HEP_TOOL_RESULT_TEXT_CAP } from './wire';

/**
 * Checks decoded HEP events against HEP v1's ordering guarantees and bounds. Returns `order`
 * and `bounds` diagnostics (codes `order` / `invalid_record`), each naming its line.
 */
export function checkHepEvents(events: readonly AgentEvent[]): Diagnostic[] {
  return runRules(hepRules, events);
}

/**
 * The rules of {@link checkHepEvents}, one event at a time: what it keeps is the open round and
 * compaction, and the last `RECENT_LIMIT` (65,536) ended rounds and started tool calls: a frame
 * of an ended round and a call no `tool_start` began are judged against those (the bounded form
 * of "every earlier round / call"; once a call was forgotten, one not among them is not reported,
 * since it may be one of those).
 */
export function hepRules(): EventChecker {
  let out: Diagnostic[] = [];
  const at = (
    e: AgentEvent,
    severity: Diagnostic['severity'],
    message: string,
    code: Diagnostic['code'] = 'order',
  ): void => {
    out.push(diagnosticAtEvent(code, severity, e, message, FORMAT));
  };
  let sawHeader = false;
  let sawAny = false;
  let agentStarts = 0;
  let open: number | undefined; // the round whose frames are arriving
  let openHasFrames = false; // other than compaction frames, which may legally end a stream
  const terminated = new RecentSet<number>();
  let lastRound = 0;
  let compaction: number | undefined;
  const started = new RecentSet<string>();
  let last: AgentEvent | undefined;
  // A call no tool_start began: certain only while no started call was forgotten.
  const unstarted = (call: string) => !started.has(call) && !started.forgot;

  const push = (e: AgentEvent): Diagnostic[] => {
    out = [];
    if (e.provenance?.synthetic && e.type === 'run.end') return out;
    if (e.provenance?.format !== undefined && e.provenance.format !== 'hep') return out;
    last = e;
    if (e.type === 'session.start') {
      if (sawAny) at(e, 'error', 'hep_header is not the first line');
      if (sawHeader) at(e, 'error', 'a second hep_header');
      sawHeader = true;
      sawAny = true;
      return out;
    }
    // (a missing header on line 1 is the decoder's own finding, not repeated here)
    sawAny = true;
    if (e.type === 'unknown') return out;
    const round = e.round;
    if (round === undefined) return out;
    if (e.type === 'tool.end' && e.provenance?.synthetic) {
      if (unstarted(e.call))
        at(e, 'warning', `turn_done reports tool call ${JSON.stringify(e.call)} that no tool_start began`);
      if (
        e.text !== undefined &&
        e.text.length > HEP_TOOL_RESULT_TEXT_CAP &&
        !isBounded(e.text, HEP_TOOL_RESULT_TEXT_CAP)
      ) {
        at(
          e,
          'error',
          `tool_results[].text is ${e.text.length} characters, over the ${HEP_TOOL_RESULT_TEXT_CAP} bound without the …(+N chars) marker`,
          'invalid_record',
        );
      }
      return out;
    }
    if (terminated.has(round)) {
      const what =
        e.type === 'round.end' || e.type === 'error' || e.type === 'cancel'
          ? 'a second terminal frame'
          : 'a frame';
      at(e, 'error', `${what} for turn_id ${round}, whose round already ended`);
      return out;
    }
    if (open !== undefined && round !== open) {
      if (compaction === undefined)
        at(
          e,
          'error',
          `turn_id ${round} while round ${open} has no terminal frame yet (frames of one round share its id)`,
        );
    }
    if (open === undefined && round <= lastRound && !(e.type === 'compaction.start')) {
      at(e, 'warning', `turn_id ${round} does not increase (the previous round was ${lastRound})`);
    }
    open = round;
    if (e.type !== 'compaction.start' && e.type !== 'compaction.end') openHasFrames = true;
    if (round > lastRound) lastRound = round;
    switch (e.type) {
      case 'run.start':
        agentStarts++;
        if (agentStarts > 1) at(e, 'error', 'agent_start repeated (once per run)');
        break;
      case 'compaction.start':
        if (compaction !== undefined)
          at(e, 'error', 'compaction_start while a compaction is already running');
        compaction = round;
        break;
      case 'compaction.end':
        if (compaction === undefined) at(e, 'error', 'compaction_end without compaction_start');
        else if (compaction !== round)
          at(e, 'error', `compaction_end for turn_id ${round}, but compaction started in ${compaction}`);
        compaction = undefined;
        break;
      case 'tool.start':
        started.add(e.call);
        if (e.argsSummary !== undefined) {
          const s = e.argsSummary;
          const full = s.charCodeAt(0) === 123;
          const over = full
            ? s.length > HEP_FULL_ARGS_CAP && !isBounded(s, HEP_FULL_ARGS_CAP)
            : s.length > HEP_SUMMARY_ARGS_CAP + 3;
          if (over)
            at(e, 'error', `args_summary is ${s.length} characters, over its bound`, 'invalid_record');
        }
        break;
      case 'tool.output':
      case 'tool.liveness':
        if (unstarted(e.call))
          at(
            e,
            'warning',
            `${e.type === 'tool.output' ? 'tool_delta' : 'tool_liveness'} for tool call ${JSON.stringify(e.call)} that no tool_start began`,
          );
        if (e.type === 'tool.output' && e.text === '')
          at(e, 'error', 'tool_delta with an empty update (never written)', 'invalid_record');
        break;
      case 'round.end':
      case 'error':
      case 'cancel':
        if (compaction !== undefined) at(e, 'error', 'a terminal frame inside an unfinished compaction');
        terminated.add(round);
        open = undefined;
        openHasFrames = false;
        break;
    }
    return out;
  };
  const end = (): Diagnostic[] => {
    out = [];
    if (!sawHeader && !sawAny) {
      out.push(diagnosticAtEvent('order', 'error', undefined, 'the stream is empty: no hep_header', FORMAT));
    }
    if (compaction !== undefined && last)
      at(last, 'error', `compaction in turn_id ${compaction} never ended`);
    if (open !== undefined && openHasFrames && last && compaction === undefined) {
      at(last, 'error', `round ${open} has no terminal frame (turn_done, turn_error or cancelled)`);
    }
    return out;
  };
  return { push, end };
}
