import type { AgentEvent } from '../../src/model';

/** A session of `n` text deltas inside one run (`n + 4` envelopes). */
export function makeEvents(n: number): AgentEvent[] {
  const events: AgentEvent[] = [
    { type: 'session.start', actor: 'user:test', mode: 'build' },
    { type: 'run.start', run: 't_1', input: 'go' },
  ];
  for (let i = 0; i < n; i++) events.push({ type: 'text.delta', round: 1, text: `tok ${i} ✅ <b>x</b>\n` });
  events.push({ type: 'round.end', round: 1, message: 'm', stopReason: 'stop' });
  events.push({ type: 'run.end', status: 'completed', stopReason: 'stop' });
  return events;
}
