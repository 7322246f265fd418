import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAt } from '../../diagnostics';
import type { AgentEvent } from '../../model';
import { aOr } from '../../words';
import { GEMINI_STDOUT_NOTICE, type GeminiHints } from './wire';

/**
 * Checks decoded Gemini events against the stream's own rules, beyond each line's (which the
 * decoder reports): `init` comes first (banners aside) and once per process; every `tool_result`
 * answers an earlier `tool_use` and every `tool_use` is answered before `result`; nothing follows
 * `result`; every record has an ISO 8601 `timestamp`; a run ends with `result` (a stream without
 * one did not finish). Returns `order` (and `invalid_record`) diagnostics naming lines.
 */
export function checkGeminiEvents(events: readonly AgentEvent[]): Diagnostic[] {
  return runRules(geminiRules, events);
}

/**
 * The rules of {@link checkGeminiEvents}, one event at a time: what it keeps is the run's open
 * calls and a few flags.
 */
export function geminiRules(): EventChecker {
  let out: Diagnostic[] = [];
  const at = (
    e: AgentEvent,
    severity: Diagnostic['severity'],
    what: string,
    code: Diagnostic['code'] = 'order',
  ) => {
    const p = e.provenance;
    if (p === undefined) out.push({ code, severity, message: what, format: 'gemini' });
    else out.push(diagnosticAt(code, severity, p.line, p.offset, what, 'gemini'));
  };
  let sawRecord = false;
  let sawInit = false;
  let ended = false;
  const open = new Map<string, AgentEvent>();
  const push = (e: AgentEvent): Diagnostic[] => {
    out = [];
    const p = e.provenance;
    if (p === undefined) return out;
    const hints = p.hints as GeminiHints | undefined;
    if (p.synthetic === true) {
      if (e.type === 'run.end' && e.status === 'incomplete') {
        at(
          e,
          'warning',
          'the stream ends without a result record: the run did not finish (killed, or failed before it could say so)',
        );
      }
      return out;
    }
    if (e.type === 'notice' && e.kind === GEMINI_STDOUT_NOTICE && hints?.text !== undefined) return out;
    if (e.type === 'unknown') return out; // the decoder reported it
    if (e.type === 'session.start') {
      if (sawRecord) at(e, 'warning', 'init is not the first record: a second process or a cut stream');
      sawInit = true;
      ended = false;
      open.clear();
    } else if (!sawRecord && !sawInit) {
      at(e, 'warning', 'the stream does not start with init');
    }
    if (ended && e.type !== 'session.start')
      at(e, 'warning', `${aOr(e.type)} event after result: result ends the run`);
    sawRecord = true;
    if (hints?.timestamp !== undefined) {
      at(
        e,
        'warning',
        hints.timestamp === null
          ? 'the record has no timestamp'
          : `timestamp ${JSON.stringify(hints.timestamp)} is not ISO 8601 as Date.toISOString writes it`,
        'invalid_record',
      );
    }
    if (e.type === 'tool.start') {
      if (open.has(e.call)) at(e, 'warning', `tool_id ${JSON.stringify(e.call)} is used by two open calls`);
      open.set(e.call, e);
    } else if (e.type === 'tool.end') {
      if (!open.delete(e.call))
        at(e, 'warning', `tool_result for ${JSON.stringify(e.call)}, which no open tool_use started`);
    } else if (e.type === 'run.end') {
      for (const [call, start] of open)
        at(start, 'warning', `tool_use ${JSON.stringify(call)} has no tool_result before result`);
      open.clear();
      ended = true;
    }
    return out;
  };
  return { push, end: () => [] };
}
