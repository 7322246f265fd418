import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, codex } from '../../src/all';
import { codexTemplates } from '../../src/formats/codex/encode';
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

/**
 * The property both stream tests check: the lines decoded (as they are, or as JSON copies), any
 * edits applied, and the writer with templates gives the general path's bytes.
 */
function sameBytesEdited(
  lines: string[],
  changes: Array<[number, (e: AgentEvent) => void]>,
  copy: boolean,
): void {
  const decoded = codex.parse(lines.map((l) => `${l}\n`).join('')).events;
  const events: AgentEvent[] = copy ? JSON.parse(JSON.stringify(decoded)) : decoded;
  if (events.length > 0) for (const [at, change] of changes) change(events[at % events.length]!);
  expect(write(events, true)).toBe(write(events, false));
}

describe('Codex writer: the template writes', () => {
  test('gives the bytes the general path gives, for any edit of any event, copied or not', () => {
    fc.assert(
      fc.property(
        stream,
        fc.array(fc.tuple(fc.nat(), edit), { maxLength: 6 }),
        fc.boolean(),
        sameBytesEdited,
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

// File change lines as Codex writes them and near misses: the changes' keys moved, added or
// missing, values of other types, escapes; the status missing or another word.
const change = fc.oneof(
  fc
    .tuple(fc.string({ maxLength: 6 }), fc.constantFrom('add', 'delete', 'update'))
    .map(([path, kind]) => JSON.stringify({ path, kind })),
  fc.constantFrom(
    '{"kind":"add","path":"a.ts"}',
    '{"path":"a.ts"}',
    '{"path":"a.ts","kind":"add","move_path":"b.ts"}',
    '{"path":1,"kind":"add"}',
    '{"path":"a.ts","kind":null}',
    '{"path":"\\u00e9\\/x","kind":"update"}',
    '"a.ts"',
    '[]',
    'null',
  ),
);
const fileLine = fc
  .tuple(
    fc.constantFrom('item.completed', 'item.started', 'item.updated'),
    fc.constantFrom('"item_3"', '"\\u0069d"', '3'),
    fc.array(change, { maxLength: 3 }),
    fc.constantFrom(
      ',"status":"completed"',
      ',"status":"failed"',
      '',
      ',"status":1',
      ',"x":true,"status":"completed"',
    ),
  )
  .map(
    ([record, id, changes, status]) =>
      `{"type":"${record}","item":{"id":${id},"type":"file_change","changes":[${changes.join(',')}]${status}}}`,
  );

describe('Codex writer: the file change template', () => {
  test('gives the bytes the general path gives, for any edit of any event, copied or not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fileLine, fileLine, ...[stream.map((l) => l.join('\n'))]), { maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.oneof(edit, edits(['changes', 'call']))), { maxLength: 6 }),
        fc.boolean(),
        sameBytesEdited,
      ),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });

  test('changes of other shapes give the bytes the general path gives', () => {
    const base = codex.parse(
      '{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"a","kind":"add"}],"status":"completed"}}\n',
    ).events;
    const holey: unknown[] = [{ path: 'a', kind: 'add' }];
    holey[2] = { path: 'b', kind: 'add' };
    const shapes: unknown[] = [
      holey,
      [Object.assign(Object.create({ inherited: 1 }), { path: 'a', kind: 'add' })],
      [Object.defineProperty({ path: 'a', kind: 'add' }, 'hidden', { value: 1 })],
      [{ path: 'a', kind: 'add', toJSON: () => 'x' }],
      [{ path: 'a', kind: 'add', extra: undefined }],
      [{ path: 'a', kind: 'add', n: Number.NaN }],
      [{ path: '\ud800', kind: 'add' }],
      [{ path: 'a', kind: Number.NaN }],
      [{ path: 'a', kind: () => 1 }],
      [{ path: 'a', kind: { deep: [1] } }],
      { 0: { path: 'a', kind: 'add' }, length: 1 },
      [],
    ];
    for (const changes of shapes) {
      const events = base.map((e) => (e.type === 'file.change' ? { ...e, changes } : e)) as AgentEvent[];
      expect(write(events, true), String(changes)).toBe(write(events, false));
    }
  });
});

// Commands started and ended as decoded Codex events, the ids reused and crossed: the start's
// template spells the item's head (id and command) and keeps it for the end's template; a call
// opened another way (hints on its start, a synthetic start, output first) has none kept.
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }), // astral characters and lone surrogates
  fc.constantFrom('', 'plain', 'a "quoted"\nline\\', '\u0000\u001f\u007f', '\ud800', 'é'),
);
// A number too, as an edited event may have (the general path writes it as a number).
const callId = fc.constantFrom('item_1', 'item_2', 'it"em', '\udc00', 7 as unknown as string);
const at = { format: 'codex' as const, line: 1, offset: 0 };
const commandEvent = fc.oneof(
  fc.tuple(callId, text, fc.boolean()).map(
    ([call, command, hinted]): AgentEvent => ({
      type: 'tool.start',
      call,
      name: 'command_execution',
      kind: 'execute',
      args: { command },
      command,
      provenance: hinted ? { ...at, hints: { exitCode: 2 } } : { ...at },
    }),
  ),
  callId.map(
    (call): AgentEvent => ({
      type: 'tool.start',
      call,
      name: 'command_execution',
      kind: 'execute',
      args: { command: 'synthetic' },
      command: 'synthetic',
      provenance: { ...at, synthetic: true },
    }),
  ),
  fc
    .tuple(callId, text, fc.boolean(), fc.constantFrom(undefined, 0, 1, -1, -0, 2 ** 53 - 1, 2 ** 53, 0.5))
    .map(([call, output, ok, exitCode]): AgentEvent => {
      const e: AgentEvent = {
        type: 'tool.end',
        call,
        name: 'command_execution',
        ok,
        text: output,
        provenance: { ...at },
      };
      if (exitCode !== undefined) e.exitCode = exitCode;
      return e;
    }),
  fc
    .tuple(callId, text)
    .map(
      ([call, output]): AgentEvent => ({ type: 'tool.output', call, text: output, provenance: { ...at } }),
    ),
  fc
    .tuple(
      fc.constantFrom('item_1', 'item_9'),
      text,
      fc.boolean(),
      fc.constantFrom(undefined, 'commentary', 'x"y'),
    )
    .map(
      ([message, body, reasoning, phase]): AgentEvent =>
        reasoning
          ? { type: 'reasoning.delta', message, text: body, provenance: { ...at } }
          : {
              type: 'text.delta',
              message,
              text: body,
              provenance: phase === undefined ? { ...at } : { ...at, extra: { phase } },
            },
    ),
);

describe('Codex writer: the command template keeps its head', () => {
  test('starts and ends of commands, ids reused, give the bytes the general path gives', () => {
    fc.assert(
      fc.property(
        fc.array(commandEvent, { maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), edit), { maxLength: 3 }),
        fc.boolean(),
        (events, changes, copy) => {
          const list: AgentEvent[] = copy ? JSON.parse(JSON.stringify(events)) : structuredClone(events);
          if (list.length > 0) for (const [i, change] of changes) change(list[i % list.length]!);
          expect(write(list, true)).toBe(write(list, false));
        },
      ),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });
});
