import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, copilot } from '../../src/all';
import { joinRecord } from '../../src/record';
import { FUZZ_RUNS } from '../runs';

// A record read from Copilot with envelope fields the model has no slot for (`extra`), its event
// edited so that the record is rebuilt: the writer puts the fields after the record's own
// (src/formats/copilot/encode.ts `withExtra`). Held equal to the way it was built before: the
// record's text parsed, each value written again, and the pieces joined by `joinRecord` with the
// fields (any keys, `__proto__` and numbers among them; any JSON values).

const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', '1', '0', 'x"y', 'é'));
const envelope = new Set(['id', 'parentId', 'timestamp', 'type', 'data', 'agentId', 'ephemeral']);
const extra = fc
  .uniqueArray(fc.tuple(key, fc.jsonValue({ maxDepth: 2 })), { selector: ([k]) => k, maxLength: 4 })
  .map((entries) => entries.filter(([k]) => !envelope.has(k)));
const title = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', 'é', '\ud800', '😀'), maxLength: 8 });

// What the writer built before: `joinRecord` over the record's parsed values and the fields.
function joined(line: string, fields: Array<[string, unknown]>): string {
  const record = JSON.parse(line) as Record<string, unknown>;
  const extraObject: Record<string, unknown> = {};
  for (const [k, v] of fields) Object.defineProperty(extraObject, k, { value: v, enumerable: true });
  const pieces = Object.keys(record).map((k): [string, string] => [k, JSON.stringify(record[k])]);
  return joinRecord(pieces, { extra: extraObject }, (v) => JSON.stringify(v) as string, 'copilot');
}

describe('Copilot writer: a record with envelope fields of its own, rebuilt', () => {
  test('gives the line joinRecord gave', () => {
    fc.assert(
      fc.property(extra, title, title, fc.boolean(), (all, before, after, disk) => {
        // (A key that is an array index comes first among a parsed record's keys: the decoder
        // then reads the record as in the SDK's order, not the disk's.)
        const fields = disk ? all.filter(([k]) => !/^(0|[1-9]\d*)$/.test(k)) : all;
        const at = '2026-01-15T10:00:00.000Z';
        const tail = fields.map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`).join('');
        const start = `{"id":"e1","parentId":null,"timestamp":"${at}","type":"session.start","data":{"sessionId":"s1","version":1,"producer":"copilot-agent","copilotVersion":"1.0.0","startTime":"${at}"}}`;
        const data = JSON.stringify({ title: before });
        const line = disk
          ? `{"type":"session.title_changed","data":${data},"id":"e2","timestamp":"${at}","parentId":"e1"${tail}}`
          : `{"id":"e2","parentId":"e1","timestamp":"${at}","type":"session.title_changed","data":${data}${tail}}`;
        const events = copilot.parse(`${start}\n${line}\n`).events;
        const edited = events.map(
          (e): AgentEvent => (e.type === 'session.title' ? { ...e, title: `${after}!` } : e),
        );
        const written = copilot.stringify(edited).split('\n');
        // The same record without its fields, as the writer builds it, then joined with them.
        const bare = copilot.stringify(
          copilot
            .parse(`${start}\n${line.replace(tail, '')}\n`)
            .events.map((e): AgentEvent => (e.type === 'session.title' ? { ...e, title: `${after}!` } : e)),
        );
        expect(written[1]).toBe(joined(bare.split('\n')[1]!, fields));
      }),
      { numRuns: FUZZ_RUNS * 2 },
    );
  });
});
