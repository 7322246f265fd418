// The appending producer of the multi-process tests: appends a run of text deltas to a session
// on Redis (the built library), printing each acknowledged seq on a line, until its stdin ends;
// then it ends the run, closes the session, prints `closed` and exits.
// Usage: node producer.mjs <redis url> <workspace> <session>

import { RedisSessionLog } from '../../dist/redis.js';

const [url, workspace, session] = process.argv.slice(2);
const log = new RedisSessionLog({ url, onError: () => {} });
let stopping = false;
process.stdin.on('end', () => {
  stopping = true;
});
process.stdin.resume();

const acknowledge = (entries) => {
  if (entries.length > 0) process.stdout.write(`${entries.map((e) => e.seq).join('\n')}\n`);
};
acknowledge(
  await log.append(workspace, session, [
    { type: 'session.start', actor: 'user:test', mode: 'build' },
    { type: 'run.start', run: 't_1', input: 'go' },
  ]),
);
// Bounded: at most 100 000 deltas even if stdin never ends.
for (let i = 0; !stopping && i < 100_000; i++) {
  acknowledge(
    await log.append(workspace, session, [{ type: 'text.delta', round: 1, text: `tok ${i} ✅\n` }]),
  );
  await new Promise((resolve) => setTimeout(resolve, 4));
}
acknowledge(
  await log.append(workspace, session, [
    { type: 'round.end', round: 1, message: 'm', stopReason: 'stop' },
    { type: 'run.end', status: 'completed', stopReason: 'stop' },
  ]),
);
await log.close(workspace, session);
process.stdout.write('closed\n');
await log.quit();
