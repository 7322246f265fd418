import type { Format } from './diagnostics';
import { type LossState, reportLoss } from './loss';
import type { AgentEvent, AgentEventOf } from './model';
import { SPAN_CUT, SPAN_MERGES, SPAN_WROTE } from './run-span-slots';

/**
 * Another format's main-lane runs as seen by a writer whose format can only say a run was cut
 * off where the stream ends (Cursor, Amp, OpenCode, highbar: a run ends at its terminal record,
 * else at the end of the input). Two things then have no record, and are said as losses here,
 * the same way for every such writer:
 *
 * - a run that ended incomplete and is followed by another: a reader takes the next run's
 *   records for the cut-off run's continuation (one run where there were two);
 * - a run that ended incomplete having written nothing (no input, no record): a reader sees no
 *   run at all.
 *
 * A format with a record of its own for the first (Copilot: its open turn and an `idle`
 * delivery) follows only the second (`newRunSpan(false)`).
 *
 * test/runs-kept.test.ts holds every writer to this: a run the reader does not give back, or
 * gives back with another status, comes with a `loss` on `run.start`, `run.end` or
 * `run.end.status`.
 */
export type RunSpan = [
  // Whether a cut-off run followed by another merges with it on reading (see above).
  merges: boolean,
  // The main-lane run end that said incomplete, while no run has started since.
  cut: AgentEventOf<'run.end'> | undefined,
  // Whether the open run has written a byte (its input, any record).
  wrote: boolean,
];

// A span is an array, not a literal: a writer makes one span per stream, so a literal's
// allocation site comes only after several writers, and until then each span's hidden class is
// one a full GC frees with the last writer, taking along the writers' optimised code that read a
// span (docs/performance.md, "Amp writer fed HEP events, round twenty-one"). An array's hidden
// class belongs to the realm.

// The slots of a RunSpan: SPAN_MERGES, SPAN_CUT, SPAN_WROTE (run-span-slots.ts, re-exported here).
export { SPAN_CUT, SPAN_MERGES, SPAN_WROTE } from './run-span-slots';

/** A span before any run; `merges` false for a format that says a cut-off run itself. */
export function newRunSpan(merges = true): RunSpan {
  return [merges, undefined, false];
}

/**
 * Before a writer writes `event`: another format's main-lane run start ends the span of the run
 * before it (a cut-off one merges into this one on reading: a loss).
 */
export function spanBefore(span: RunSpan, loss: LossState, event: AgentEvent, format: Format): void {
  if (event.type !== 'run.start' || event.lane !== undefined || event.provenance?.format === format) return;
  const cut = span[SPAN_CUT];
  span[SPAN_CUT] = undefined;
  span[SPAN_WROTE] = false;
  if (cut === undefined) return;
  reportLoss(
    loss,
    cut,
    'run.end.status',
    `${format} says a run was cut off only where the stream ends: the next run's records read back as this run's`,
  );
}

/**
 * After a writer wrote `text` for `event`: a byte written counts for the open run; another
 * format's main-lane run end that said incomplete is then held until the next run's start (or
 * the stream's end, where it reads back incomplete, as it was), or, having written nothing, is
 * gone on reading (a loss). A writer whose run end wrote a record that ends the run on reading
 * clears the span's `SPAN_CUT` after this.
 */
export function spanAfter(
  span: RunSpan,
  loss: LossState,
  event: AgentEvent,
  text: string,
  format: Format,
): void {
  if (text !== '') span[SPAN_WROTE] = true;
  if (event.type !== 'run.end' || event.lane !== undefined || event.provenance?.format === format) return;
  const wrote = span[SPAN_WROTE];
  span[SPAN_WROTE] = false;
  if (event.status !== 'incomplete') return;
  if (wrote) {
    if (span[SPAN_MERGES]) span[SPAN_CUT] = event;
    return;
  }
  reportLoss(
    loss,
    event,
    'run.start',
    `${format} has no record for a run that wrote nothing (no input, no event it carries) and never ended`,
  );
}
