import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { codexTemplates } from '../../src/formats/codex/encode';
import { type AgentEvent, codex } from '../../src/index';
import { edits } from '../kept-suite';
import { FUZZ_RUNS } from '../runs';
import { stream } from './lines';

// The Codex writer's template writes (src/formats/codex/encode.ts `template`) held equal to the
// general path: streams of Codex's item lines and near misses, decoded, as they are or as JSON
// copies, their events edited anywhere (fields, provenance: extra fields, hints, key order,
// format), and every field of every event of the fixtures changed alone.

type Loose = Record<string, unknown>;
type Edit = (e: AgentEvent) => void;

const FIELDS = [
  'text',
  'message',
  'call',
  'name',
  'kind',
  'command',
  'ok',
  'exitCode',
  'denied',
  'session',
  'status',
];

// Edits of what the template reads beside the fields: the provenance.
const provenanceEdits: Edit[] = [
  (e) => {
    if (e.provenance !== undefined) e.provenance.extra = { phase: 'final_answer' };
  },
  (e) => {
    if (e.provenance !== undefined) e.provenance.extra = { phase: 1 };
  },
  (e) => {
    if (e.provenance !== undefined) e.provenance.extra = { ...e.provenance.extra, more: true };
  },
  (e) => {
    if (e.provenance !== undefined) e.provenance.extra = {};
  },
  (e) => {
    if (e.provenance !== undefined) e.provenance.hints = {};
  },
  (e) => {
    if (e.provenance !== undefined) e.provenance.hints = { snapshot: true };
  },
  (e) => {
    if (e.provenance !== undefined) e.provenance.hints = { record: 'item.updated' };
  },
  (e) => {
    if (e.provenance !== undefined) e.provenance.order = ['text', 'type', 'id'];
  },
  (e) => {
    if (e.provenance?.hints !== undefined)
      e.provenance.hints = { ...e.provenance.hints, usageExtra: { x: 1 } };
  },
  (e) => {
    if (e.provenance !== undefined) e.provenance.format = 'hep';
  },
  (e) => {
    delete e.provenance;
  },
];
const edit = fc.oneof(edits(FIELDS), fc.constantFrom(...provenanceEdits));

function write(events: AgentEvent[], templates: boolean): string {
  codexTemplates.enabled = templates;
  try {
    return codex.stringify(events, { idSource: () => 'id' });
  } catch (error) {
    return `threw ${String(error)}`;
  } finally {
    codexTemplates.enabled = true;
  }
}

describe('Codex writer: the template writes', () => {
  test('gives the bytes the general path gives, for any edit of any event, copied or not', () => {
    fc.assert(
      fc.property(
        stream,
        fc.array(fc.tuple(fc.nat(), edit), { maxLength: 6 }),
        fc.boolean(),
        (lines, changes, copy) => {
          const decoded = codex.parse(lines.map((l) => `${l}\n`).join('')).events;
          const events: AgentEvent[] = copy ? JSON.parse(JSON.stringify(decoded)) : decoded;
          if (events.length > 0) for (const [at, change] of changes) change(events[at % events.length]!);
          expect(write(events, true)).toBe(write(events, false));
        },
      ),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });

  test('every field of every event of the fixtures, changed alone, gives the bytes the general path gives', () => {
    const changes: Array<(x: Loose, k: string) => void> = [
      (x, k) => {
        const v = x[k];
        x[k] =
          typeof v === 'string' ? `${v}x` : typeof v === 'number' ? v + 1 : typeof v === 'boolean' ? !v : 1;
      },
      (x, k) => {
        delete x[k];
      },
      (x, k) => {
        x[k] = null;
      },
      (x, k) => {
        x[k] = 'x';
      },
      (x, k) => {
        x[k] = Number.NaN;
      },
    ];
    let templated = 0;
    for (const name of readdirSync('fixtures/codex').filter((f) => f.endsWith('.jsonl'))) {
      const input = readFileSync(`fixtures/codex/${name}`, 'utf8');
      const count = codex.parse(input).events.length;
      expect(write(codex.parse(input).events, true), name).toBe(write(codex.parse(input).events, false));
      for (let i = 0; i < count; i++) {
        const event = codex.parse(input).events[i]!;
        if (event.provenance?.hints === undefined) templated++;
        for (const key of Object.keys(event)) {
          if (key === 'type') continue;
          for (const change of changes) {
            const events = codex.parse(input).events;
            change(events[i] as unknown as Loose, key);
            expect(write(events, true), `${name} event ${i} ${key}`).toBe(write(events, false));
          }
        }
      }
    }
    // the fixtures hold events the templates write
    expect(templated).toBeGreaterThan(0);
  });
});
