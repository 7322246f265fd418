import { expect } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { connect } from '../../src/formats/nativeharness/index';
import type { AgentEvent } from '../../src/model';

/**
 * The gap signal as a client meets it, for any session log: `url` is a closed session's base
 * (`…/sessions/{id}`) holding seqs 10–14 of 14 (the rest trimmed). A resume after 2 gets `gap`,
 * then 10–14; `/events?after=2` is `410` with the same body.
 */
export async function expectGap(url: string): Promise<void> {
  const diagnostics: Diagnostic[] = [];
  const got: AgentEvent[] = [];
  for await (const e of connect(`${url}/stream`, {
    lastEventId: '2',
    minRetryMs: 0,
    retryMs: 0,
    onDiagnostic: (d) => diagnostics.push(d),
  })) {
    got.push(e);
  }
  expect(diagnostics.map((d) => d.code)).toEqual(['gap']);
  expect(got.map((e) => e.seq)).toEqual([10, 11, 12, 13, 14]);
  const gone = await fetch(`${url}/events?after=2`);
  expect(gone.status).toBe(410);
  expect(await gone.json()).toEqual({ error: 'gap', after: 2, next: 10 });
}
