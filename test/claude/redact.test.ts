import { expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import { claude } from '../../src/formats/claude/index';
import { listFixtures, loadFixture } from '../../src/node/fixtures';

// A tool's output, redacted in its `tool.end` event, leaves no trace in the line written back:
// Claude Code repeats the output at the top level of the result line (`tool_use_result`: the
// text, `Error: <text>`, or a structured copy such as a Read's file), and a patched tool_result
// block alone would leave the secret there.

const fixtures = listFixtures('claude');

test.each(fixtures.map((f) => [f.name, f] as const))(
  '%s: a redacted tool output is gone from its result line',
  (_name, info) => {
    const { events } = claude.parse(loadFixture('claude', info.name).bytes);
    events.forEach((e, i) => {
      if (e.type !== 'tool.end' || e.text === undefined || e.text.length < 8) return;
      const edited: AgentEvent[] = [...events];
      edited[i] = { ...e, text: 'REDACTED' };
      const out = claude.stringify(edited, { onDiagnostic() {} });
      const lines = out.split('\n').filter((l) => l.includes(`"tool_use_id":${JSON.stringify(e.call)}`));
      expect(lines.length).toBeGreaterThan(0);
      const secret = JSON.stringify(e.text).slice(1, -1);
      for (const line of lines) {
        if (!line.includes('"tool_result"')) continue;
        expect(line).toContain('REDACTED');
        expect(line).not.toContain(secret);
      }
    });
  },
);

test('the fixtures have tool outputs to redact', () => {
  let n = 0;
  for (const f of fixtures)
    for (const e of claude.parse(loadFixture('claude', f.name).bytes).events)
      if (e.type === 'tool.end' && e.text !== undefined && e.text.length >= 8) n++;
  expect(n).toBeGreaterThan(5);
});

// Taken out rather than changed: a tool end without its structured result (`result`, Claude's
// `tool_use_result`) is not written back with it from the line it kept. Any field the line gives
// its event counts (test/edits-kept.test.ts tries every text field); this is the one that is not
// text, the structured copy of a call's output (a Read's file, a Bash command's stdout).
test.each(fixtures.map((f) => [f.name, f] as const))(
  '%s: a structured result taken out of a tool end is gone from its line',
  (_name, info) => {
    const { events } = claude.parse(loadFixture('claude', info.name).bytes);
    events.forEach((e, i) => {
      if (e.type !== 'tool.end' || typeof e.result !== 'object' || e.result === null) return;
      const { result: _gone, ...rest } = e;
      const edited: AgentEvent[] = [...events];
      edited[i] = rest;
      const out = claude.stringify(edited, { onDiagnostic() {} });
      const line = out
        .split('\n')
        .find((l) => l.includes(`"tool_use_id":${JSON.stringify(e.call)}`) && l.includes('"tool_result"'));
      expect(line).toBeDefined();
      expect(line).not.toContain('"tool_use_result":');
    });
  },
);

test('the fixtures have structured results to take out', () => {
  let n = 0;
  for (const f of fixtures)
    for (const e of claude.parse(loadFixture('claude', f.name).bytes).events)
      if (e.type === 'tool.end' && typeof e.result === 'object' && e.result !== null) n++;
  expect(n).toBeGreaterThan(3);
});

// A call's arguments redacted in its `tool.start` leave no trace in its result line either:
// Claude Code copies some of them into the result's `tool_use_result` (an Edit's `oldString` and
// `newString`, which its `structuredPatch` lines hold too). The copy is left out of the line.
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(stringsOf);
}

// The calls whose result repeats one of their arguments' strings, with those strings.
function repeatedArgs(events: readonly AgentEvent[]): Array<{ i: number; secrets: string[] }> {
  const out: Array<{ i: number; secrets: string[] }> = [];
  events.forEach((e, i) => {
    if (e.type !== 'tool.start' || e.args === undefined) return;
    const end = events.find((x) => x.type === 'tool.end' && x.call === e.call);
    if (end?.type !== 'tool.end' || end.result === undefined) return;
    const copy = JSON.stringify(end.result);
    const secrets = stringsOf(e.args).filter(
      (s) => s.length >= 6 && copy.includes(JSON.stringify(s).slice(1, -1)),
    );
    if (secrets.length > 0) out.push({ i, secrets });
  });
  return out;
}

test.each(fixtures.map((f) => [f.name, f] as const))(
  '%s: redacted call arguments are gone from the result that repeats them',
  (_name, info) => {
    const { events } = claude.parse(loadFixture('claude', info.name).bytes);
    for (const { i, secrets } of repeatedArgs(events)) {
      const start = events[i] as AgentEvent & { type: 'tool.start' };
      const args = JSON.parse(JSON.stringify(start.args), (_k, v: unknown) =>
        typeof v === 'string' && secrets.includes(v) ? 'REDACTED' : v,
      ) as Record<string, unknown>;
      const edited: AgentEvent[] = [...events];
      edited[i] = { ...start, args };
      const out = claude.stringify(edited, { onDiagnostic() {} });
      const result = out
        .split('\n')
        .find(
          (l) => l.includes(`"tool_use_id":${JSON.stringify(start.call)}`) && l.includes('"tool_result"'),
        );
      expect(result).toBeDefined();
      const copy = JSON.stringify(
        (JSON.parse(result!) as { tool_use_result?: unknown }).tool_use_result ?? null,
      );
      for (const secret of secrets) expect(copy).not.toContain(JSON.stringify(secret).slice(1, -1));
    }
  },
);

test('the fixtures have results that repeat their call arguments (an Edit)', () => {
  let n = 0;
  for (const f of fixtures)
    n += repeatedArgs(claude.parse(loadFixture('claude', f.name).bytes).events).length;
  expect(n).toBeGreaterThan(0);
});

// Edited rather than taken out: a structured result redacted in its `tool.end` (every string of
// a Read's file or a command's output replaced, the text left as it was) is the line's
// `tool_use_result` as edited, and none of the old strings stays on the line but where the
// tool_result block's text (unedited) says it.
function redacted(value: unknown): unknown {
  if (typeof value === 'string') return 'REDACTED';
  if (Array.isArray(value)) return value.map(redacted);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redacted(v)]));
  return value;
}

test.each(fixtures.map((f) => [f.name, f] as const))(
  '%s: a structured result edited in a tool end is the one its line says',
  (_name, info) => {
    const { events } = claude.parse(loadFixture('claude', info.name).bytes);
    events.forEach((e, i) => {
      if (e.type !== 'tool.end' || typeof e.result !== 'object' || e.result === null) return;
      const result = redacted(e.result);
      const edited: AgentEvent[] = [...events];
      edited[i] = { ...e, result };
      const out = claude.stringify(edited, { onDiagnostic() {} });
      const line = out
        .split('\n')
        .find((l) => l.includes(`"tool_use_id":${JSON.stringify(e.call)}`) && l.includes('"tool_result"'));
      expect(line).toBeDefined();
      expect((JSON.parse(line!) as { tool_use_result?: unknown }).tool_use_result).toEqual(result);
    });
  },
);

test('the fixtures have structured results to edit', () => {
  let n = 0;
  for (const f of fixtures)
    for (const e of claude.parse(loadFixture('claude', f.name).bytes).events)
      if (e.type === 'tool.end' && typeof e.result === 'object' && e.result !== null) n++;
  expect(n).toBeGreaterThan(3);
});

// A permission request's tool input redacted in its `approval.request` (a Write's file content,
// a command line) is the `control_request`'s `input` as edited: none of the old strings stays.
test.each(fixtures.map((f) => [f.name, f] as const))(
  '%s: the arguments edited in a permission request are the ones its line says',
  (_name, info) => {
    const { events } = claude.parse(loadFixture('claude', info.name).bytes);
    events.forEach((e, i) => {
      if (e.type !== 'approval.request' || e.args === undefined) return;
      const args = redacted(e.args) as Record<string, unknown>;
      const edited: AgentEvent[] = [...events];
      edited[i] = { ...e, args };
      const out = claude.stringify(edited, { onDiagnostic() {} });
      const line = out.split('\n').find((l) => l.includes(`"request_id":${JSON.stringify(e.approval)}`));
      expect(line).toBeDefined();
      const record = JSON.parse(line!) as { request?: { input?: unknown } };
      expect(record.request?.input).toEqual(args);
      for (const secret of stringsOf(e.args).filter((s) => s.length >= 6))
        expect(line).not.toContain(JSON.stringify(secret).slice(1, -1));
    });
  },
);

test('the fixtures have permission requests with arguments', () => {
  let n = 0;
  for (const f of fixtures)
    for (const e of claude.parse(loadFixture('claude', f.name).bytes).events)
      if (e.type === 'approval.request' && e.args !== undefined) n++;
  expect(n).toBeGreaterThan(1);
});
