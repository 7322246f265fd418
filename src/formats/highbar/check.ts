import { type EventChecker, runRules } from '../../codec';
import { type Diagnostic, diagnosticAtEvent } from '../../diagnostics';
import type { AgentEvent } from '../../model';
import { HIGHBAR as FORMAT } from './wire';

/**
 * Checks decoded highbar events against what highbar itself expects of an emitter, beyond each
 * line's own rules (which the decoder reports): a v1 trace written by an agent that highbar
 * starts begins with `hello` (highbar waits 2 s for it, else the run stops with exit code 2); a
 * writer that declares no tools gets highbar's warning; a tool record without `context.test`
 * belongs to no test. Returns `order` diagnostics naming lines.
 */
export function checkHighbarEvents(events: readonly AgentEvent[]): Diagnostic[] {
  return runRules(highbarRules, events);
}

/**
 * The rules of {@link checkHighbarEvents}, one event at a time: what it keeps is a few flags, a
 * count and two events (the first, the first tool record without a test).
 */
export function highbarRules(): EventChecker {
  let out: Diagnostic[] = [];
  const at = (e: AgentEvent | undefined, severity: Diagnostic['severity'], message: string): void => {
    out.push(diagnosticAtEvent('order', severity, e, message, FORMAT));
  };
  let first: AgentEvent | undefined;
  let sawHello = false;
  let v1 = false;
  let declared = 0;
  let untested: AgentEvent | undefined;
  const push = (e: AgentEvent): Diagnostic[] => {
    out = [];
    if (e.provenance?.synthetic) return out;
    first ??= e;
    const isV0 = (e.provenance?.hints as { v0?: unknown } | undefined)?.v0 !== undefined;
    if (!isV0 && e.type !== 'unknown') v1 = true;
    if (e.type === 'session.start') {
      if (!sawHello && e !== first)
        at(e, 'warning', 'hello is not the first record: highbar waits for it before any message');
      sawHello = true;
      declared = e.tools?.length ?? 0;
    } else if (e.type === 'tools.declare') declared += e.tools.length;
    else if (
      e.type === 'tool.end' &&
      !isV0 &&
      (e.context === undefined || !Object.hasOwn(e.context, 'test'))
    ) {
      untested ??= e;
    }
    return out;
  };
  const end = (): Diagnostic[] => {
    out = [];
    report();
    return out;
  };
  return { push, end };

  function report(): void {
    if (first !== undefined && v1 && !sawHello) {
      at(
        first,
        'warning',
        'no hello record: when highbar starts the agent it waits 2 s for one, then stops with exit code 2',
      );
    }
    if (sawHello && declared === 0) {
      at(
        undefined,
        'warning',
        'the writer declares no tools (hello.tools or a tools record): highbar warns, and guardrails on tools cannot be checked',
      );
    }
    if (untested !== undefined) {
      at(
        untested,
        'info',
        'a tool record without context.test: it belongs to no test (the X-Highbar-Test header was not copied)',
      );
    }
  }
}
