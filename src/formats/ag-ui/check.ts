import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAt } from '../../diagnostics';
import { isJsonObject } from '../../json';
import type { AgentEvent } from '../../model';
import type { AguiHints } from './wire';

/**
 * Checks decoded AG-UI events against the protocol's ordering rules (what `@ag-ui/client`'s
 * `verifyEvents` enforces), beyond each event's own fields (which the decoder reports): a run
 * opens before anything else and nothing but a new run follows its end; a message, a reasoning
 * message, a tool call and a step are opened before they are continued or closed and closed
 * before the run ends. The order judged is the wire's: a carried event the decoder reads as before
 * its run (`hints.early`) stands after the run's `RUN_STARTED`, and a step the run's end closed
 * (a record carried by the next event, `hints.before`) is finished. Returns `order` diagnostics
 * naming lines.
 */
export function checkAguiEvents(events: readonly AgentEvent[]): Diagnostic[] {
  return runRules(aguiRules, events);
}

/**
 * The rules of {@link checkAguiEvents}, one event at a time: what it keeps is the open messages,
 * tool calls and the count of open steps of the current run.
 */
export function aguiRules(): EventChecker {
  let run: 'none' | 'open' | 'ended' = 'none';
  const text = new Set<string>();
  const calls = new Set<string>();
  let steps = 0;
  const push = (e: AgentEvent): Diagnostic[] => {
    const out: Diagnostic[] = [];
    const p = e.provenance;
    if (p === undefined || p.synthetic) return out;
    const at = (what: string) => out.push(diagnosticAt('order', 'error', p.line, p.offset, what, 'ag-ui'));
    const notOpen = (record: string, id: string) => at(`${record} for ${JSON.stringify(id)}, not open`);
    const hints = p.hints as Pick<AguiHints, 'part' | 'early' | 'before'> | undefined;
    // Records with no event of their own ride this event (`hints.before`): a step the run's
    // end closed (`metadata.agentwire.closing`) is finished there, before this event.
    if (hints?.before !== undefined) steps = Math.max(0, steps - stepsFinished(hints.before));
    if (e.type === 'run.start') {
      if (run === 'open') at('RUN_STARTED while a run is still active');
      run = 'open';
      return out;
    }
    // A carried event read as before its run (`hints.early`: a session start, a notice, …) sits
    // right after the run's `RUN_STARTED` on the wire, inside the run: the decoder gives it
    // first, as it came, but the order to check is the wire's.
    if (hints?.part === true || hints?.early === true) return out;
    if (run !== 'open') {
      at(run === 'none' ? 'the first event must be RUN_STARTED' : 'an event after the run finished');
      run = 'open';
    }
    switch (e.type) {
      case 'run.end':
        if (text.size > 0) at(`the run ends with text messages still open: ${[...text].join(', ')}`);
        if (calls.size > 0) at(`the run ends with tool calls still open: ${[...calls].join(', ')}`);
        if (steps > 0 && e.status !== 'failed') at('the run ends with a step still open');
        text.clear();
        calls.clear();
        steps = 0;
        run = 'ended';
        break;
      case 'round.start':
        steps++;
        break;
      case 'round.end':
        if (steps === 0) at('STEP_FINISHED for a step that was not started');
        else steps--;
        break;
      case 'message.start':
        if (e.message !== undefined) text.add(e.message);
        break;
      case 'message.end':
        if (e.message !== undefined && !text.delete(e.message)) notOpen('TEXT_MESSAGE_END', e.message);
        break;
      case 'text.delta':
        if (
          e.message !== undefined &&
          !text.has(e.message) &&
          (p.hints as { record?: { type?: string } })?.record?.type === 'TEXT_MESSAGE_CONTENT'
        )
          notOpen('TEXT_MESSAGE_CONTENT', e.message);
        break;
      case 'tool.args.delta':
        if (e.name !== undefined && e.text === '') calls.add(e.call);
        else if (!calls.has(e.call)) notOpen('TOOL_CALL_ARGS', e.call);
        break;
      case 'tool.start':
        if (!calls.delete(e.call)) notOpen('TOOL_CALL_END', e.call);
        break;
      default:
        break;
    }
    return out;
  };
  return { push, end: () => [] };
}

/** How many of `records` (JSON texts as read) are `STEP_FINISHED` events. */
function stepsFinished(records: readonly string[]): number {
  let n = 0;
  for (const raw of records) {
    const r: unknown = JSON.parse(raw);
    if (isJsonObject(r) && r.type === 'STEP_FINISHED') n++;
  }
  return n;
}
