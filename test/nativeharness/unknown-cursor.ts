import { expect } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { connect } from '../../src/formats/nativeharness/index';
import type { AgentEvent } from '../../src/model';
import type { SessionLog } from '../../src/node/session-log';
import { makeEvents } from '../redis/events';

// How long a wrong answer (a stream that waits for ever) is given before the check fails.
const WAIT = 5_000;

/**
 * A cursor that is not an event id of the session's stream (above its last seq: another
 * session's, or one from a log that was lost and began again), as a client meets it, for any
 * session log served by `createSseHandler` at `base` (`…/workspaces/w/sessions`). Two sessions
 * of 6 envelopes are made, `open` left open and `done` closed. Such a cursor is refused with
 * `409` on both routes (it was followed from there: an open session waited for ever, a closed
 * one answered `204`, and the client missed every event without a word); `connect()` ends with
 * an error; `follow()` ends with `error`. The last seq itself is still a cursor like any other.
 */
export async function expectUnknownCursor(
  base: string,
  log: SessionLog,
  names: { open: string; done: string },
): Promise<void> {
  await log.append('w', names.open, makeEvents(2));
  await log.append('w', names.done, makeEvents(2));
  await log.close('w', names.done);
  const head = 6;
  const refused = { error: 'unknown_cursor', after: head + 7, last: head };
  for (const session of [names.open, names.done]) {
    const url = `${base}/${session}`;
    const stream = await fetch(`${url}/stream`, {
      headers: { 'last-event-id': String(head + 7) },
      signal: AbortSignal.timeout(WAIT),
    });
    await expectRefused(stream, refused, `${session} /stream`);
    const events = await fetch(`${url}/events?after=${head + 7}`, { signal: AbortSignal.timeout(WAIT) });
    await expectRefused(events, refused, `${session} /events`);
    const justPast = await fetch(`${url}/stream?after=${head + 1}`, { signal: AbortSignal.timeout(WAIT) });
    await expectRefused(justPast, { ...refused, after: head + 1 }, `${session} /stream after ${head + 1}`);
  }
  // At the last seq: the open session is followed from there, the closed one is over (204).
  const atHead = await fetch(`${base}/${names.open}/stream?after=${head}`, {
    signal: AbortSignal.timeout(WAIT),
  });
  expect(atHead.status).toBe(200);
  await atHead.body?.cancel();
  expect((await fetch(`${base}/${names.done}/stream?after=${head}`)).status).toBe(204);

  // connect() ends with an error diagnostic instead of waiting for seq 14 for ever.
  const diagnostics: Diagnostic[] = [];
  const got: AgentEvent[] = [];
  for await (const e of connect(`${base}/${names.open}/stream`, {
    lastEventId: String(head + 7),
    signal: AbortSignal.timeout(WAIT),
    onDiagnostic: (d) => diagnostics.push(d),
  })) {
    got.push(e);
  }
  expect(got).toEqual([]);
  expect(diagnostics.map((d) => d.code)).toEqual(['connection']);
  expect(diagnostics[0]!.message).toContain('HTTP 409');

  // The log itself: a follow from past the last seq ends with an error, not a wait.
  for (const session of [names.open, names.done]) {
    let unfollow = (): void => {};
    const ended = await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('still waiting'), WAIT);
      const done = (what: string): void => {
        clearTimeout(timer);
        resolve(what);
      };
      unfollow = log.follow('w', session, head + 7, {
        entry: (e) => done(`entry ${e.seq}`),
        end: () => done('end'),
        error: (error) => done(error.message),
      });
    });
    unfollow();
    expect(ended, session).toContain(
      `cursor ${head + 7} is past the last seq of session ${session} (${head})`,
    );
  }
}

async function expectRefused(response: Response, body: object, what: string): Promise<void> {
  const status = response.status;
  const text = await response.text().catch(() => '');
  expect({ status, body: status === 409 ? JSON.parse(text) : text }, what).toEqual({ status: 409, body });
}
