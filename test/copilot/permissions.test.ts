import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, copilot } from '../../src/all';
import { loadFixture } from '../../src/node/fixtures';
import { withoutRaw } from '../agent-suite';
import { FUZZ_RUNS } from '../runs';

// Copilot's permission and user input requests (github/copilot-sdk session-events.ts
// `PermissionRequestedData`, `PermissionCompletedData`, `UserInputRequestedData`,
// `UserInputCompletedData`) as the model's approvals and questions: read, written back byte for
// byte, edited, written from another format's events, and checked.

const line = (id: string, type: string, data: object, tail = '') =>
  `{"id":"${id}","parentId":null,"timestamp":"2026-01-15T10:00:00.000Z","type":"${type}","data":${JSON.stringify(data)}${tail}}`;

// The events of a stream without their provenance and envelope (what a reader compares).
const bare = (events: readonly AgentEvent[], types: RegExp) =>
  events
    .filter((e) => types.test(e.type))
    .map((e) => {
      const { provenance, session, ts, round, ...rest } = e as AgentEvent & Record<string, unknown>;
      return rest;
    });

function write(events: AgentEvent[]): { text: string; lost: string[]; records: Record<string, unknown>[] } {
  const lost: string[] = [];
  let n = 0;
  const text = copilot.stringify(events, {
    idSource: () => `id-${++n}`,
    clock: () => 1767225600000,
    session: 's-1',
    onDiagnostic: (d) => lost.push(d.field ?? ''),
  });
  const records = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { text, lost, records };
}

describe('copilot permission and user input requests: reading', () => {
  const { events } = copilot.parse(loadFixture('copilot', 'permissions').bytes);

  test('each kind of request says its call, tool, title, arguments and effect where it has them', () => {
    expect(bare(events, /^approval\.request$/)).toEqual([
      {
        type: 'approval.request',
        approval: 'perm-1',
        call: 'call_rm',
        title: 'Remove the build directory',
        effects: ['rm -rf build'],
      },
      {
        type: 'approval.request',
        approval: 'perm-2',
        call: 'call_fetch',
        title: 'Read the build docs',
        effects: ['https://docs.example.com/build'],
      },
      {
        type: 'approval.request',
        approval: 'perm-3',
        call: 'call_issue',
        tool: 'create_issue',
        title: 'Create an issue',
        args: { title: 'Flaky build' },
      },
    ]);
  });

  test('a result kind is a decision, and a denial says who denied', () => {
    expect(bare(events, /^approval\.resolve$/)).toEqual([
      { type: 'approval.resolve', approval: 'perm-1', decision: 'allow' },
      { type: 'approval.resolve', approval: 'perm-2', decision: 'deny', by: 'user' },
      { type: 'approval.resolve', approval: 'perm-3', decision: 'deny', by: 'policy' },
    ]);
  });

  test('a user input request is one question, its choices by their text; its answer keyed by its id', () => {
    expect(bare(events, /^question/)).toEqual([
      {
        type: 'question',
        question: 'input-1',
        questions: [
          {
            id: 'input-1',
            text: 'Which branch?',
            options: [
              { id: 'main', label: 'main' },
              { id: 'develop', label: 'develop' },
            ],
          },
        ],
        call: 'call_ask',
      },
      { type: 'question.answer', question: 'input-1', answers: { 'input-1': 'main' } },
    ]);
  });

  test('a result without a kind, and a request without its request, are kept as unknown', () => {
    const text = `${[
      line('e1', 'permission.completed', { requestId: 'p', result: {} }),
      line('e2', 'permission.requested', { requestId: 'p' }),
      line('e3', 'permission.completed', { requestId: 'p', result: { kind: 'constructor' } }),
    ].join('\n')}\n`;
    const { events, diagnostics } = copilot.parse(text);
    expect(events.map((e) => e.type)).toEqual(['unknown', 'unknown', 'approval.resolve']);
    expect(diagnostics.map((d) => d.message)).toEqual([
      expect.stringContaining('data.result.kind is not a string'),
      expect.stringContaining('data.permissionRequest is not a object'),
    ]);
    // A kind named like a property of every object names no one, and is the format's own word.
    expect(events[2]).toMatchObject({ decision: 'constructor' });
    expect(events[2]).not.toHaveProperty('by');
    expect(copilot.stringify(events)).toBe(text);
  });

  test('the on-disk key order and an agentId come back as they were', () => {
    const text = `${[
      `{"type":"permission.requested","data":{"requestId":"p","permissionRequest":{"kind":"read","path":"a.ts","intention":"Read a.ts"}},"id":"e1","timestamp":"2026-01-15T10:00:00.000Z","parentId":null,"agentId":"agent-1"}`,
      line('e2', 'user_input.completed', { requestId: 'u' }, ',"ephemeral":true'),
    ].join('\n')}\n`;
    const { events } = copilot.parse(text);
    expect(events[0]).toMatchObject({ type: 'approval.request', lane: 'agent-1', effects: ['a.ts'] });
    expect(events[1]).toMatchObject({ type: 'question.answer', answers: {} });
    expect(copilot.stringify(events)).toBe(text);
  });
});

// Records of the four types and near misses (fields absent or of another type, extra fields, any
// kind, the on-disk key order, an agentId, ephemeral or not).
const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('"', '\\', 'é\n', 'toString'));
const any = fc.oneof(text, fc.constantFrom<unknown>(undefined, null, 7, true, ['a', 1], { a: 1 }));
const field = <T>(a: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: a }, { weight: 1, arbitrary: any });
const record = fc.oneof(
  fc
    .record(
      {
        requestId: field(text),
        permissionRequest: field(
          fc.dictionary(
            fc.constantFrom(
              'kind',
              'toolCallId',
              'toolName',
              'intention',
              'toolTitle',
              'args',
              'toolArgs',
              'fullCommandText',
              'url',
              'commands',
            ),
            any,
            { maxKeys: 5 },
          ),
        ),
        resolvedByHook: fc.boolean(),
      },
      { requiredKeys: ['requestId'] },
    )
    .map((d) => ['permission.requested', d] as const),
  fc
    .record(
      {
        requestId: field(text),
        toolCallId: text,
        result: field(
          fc.record(
            {
              kind: field(
                fc.constantFrom('approved', 'approved-for-session', 'denied-by-rules', 'cancelled'),
              ),
              rules: fc.constant([]),
            },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: ['requestId', 'result'] },
    )
    .map((d) => ['permission.completed', d] as const),
  fc
    .record(
      {
        requestId: field(text),
        question: field(text),
        choices: field(fc.array(field(text), { maxLength: 3 })),
        allowFreeform: fc.boolean(),
        toolCallId: field(text),
      },
      { requiredKeys: ['requestId', 'question'] },
    )
    .map((d) => ['user_input.requested', d] as const),
  fc
    .record({ requestId: field(text), answer: any, wasFreeform: fc.boolean() }, { requiredKeys: [] })
    .map((d) => ['user_input.completed', d] as const),
);
const lines = fc.array(
  fc.tuple(record, fc.nat({ max: 5 }), fc.constantFrom('e1', 'e2')).map(([[type, data], how, id]) => {
    const r = { id, parentId: null, timestamp: '2026-01-15T10:00:00.000Z', type, data };
    if (how === 1) return JSON.stringify({ type, data, id, timestamp: r.timestamp, parentId: null });
    if (how === 2) return JSON.stringify({ ...r, agentId: 'agent-1' });
    if (how === 3) return JSON.stringify({ ...r, ephemeral: true });
    return JSON.stringify(r);
  }),
  { minLength: 1, maxLength: 8 },
);

test('every such line comes back byte for byte, with its raw line and rebuilt from the model', () => {
  fc.assert(
    fc.property(lines, (ls) => {
      const input = `${ls.join('\n')}\n`;
      const { events } = copilot.parse(input);
      expect(copilot.stringify(events)).toBe(input);
      expect(copilot.stringify(withoutRaw(events))).toBe(input);
    }),
    { numRuns: FUZZ_RUNS },
  );
});

describe('copilot permission and user input requests: writing', () => {
  test('edited events are written into the keys they were read from, the rest of the record kept', () => {
    const { events } = copilot.parse(loadFixture('copilot', 'permissions').bytes);
    const request = events.find((e) => e.type === 'approval.request' && e.approval === 'perm-1');
    const resolve = events.find((e) => e.type === 'approval.resolve' && e.approval === 'perm-3');
    const answer = events.find((e) => e.type === 'question.answer');
    if (request?.type !== 'approval.request' || resolve?.type !== 'approval.resolve')
      throw new Error('fixture');
    if (answer?.type !== 'question.answer') throw new Error('fixture');
    request.title = 'Remove build/';
    request.effects = ['rm -rf build/'];
    request.tool = 'bash';
    resolve.by = 'hook';
    answer.answers = { 'input-1': 'develop' };
    const { records, lost } = write(events);
    const data = (id: string) =>
      records.find(
        (r) => (r.data as Record<string, unknown>).requestId === id && r.type !== 'permission.completed',
      )?.data;
    expect(data('perm-1')).toEqual({
      requestId: 'perm-1',
      permissionRequest: {
        kind: 'shell',
        toolCallId: 'call_rm',
        fullCommandText: 'rm -rf build/',
        intention: 'Remove build/',
        commands: [{ identifier: 'rm', readOnly: false }],
        possiblePaths: ['build'],
        possibleUrls: [],
        hasWriteFileRedirection: false,
        canOfferSessionApproval: true,
      },
    });
    // A shell request names no tool.
    expect(lost).toEqual(['approval.request.tool']);
    const completed = records.filter((r) => r.type === 'permission.completed').map((r) => r.data);
    // Still a denial, now a hook's: the kept rules no longer say why.
    expect(completed[2]).toEqual({
      requestId: 'perm-3',
      toolCallId: 'call_issue',
      result: { kind: 'denied-by-permission-request-hook' },
    });
    expect(records.find((r) => r.type === 'user_input.completed')?.data).toEqual({
      requestId: 'input-1',
      answer: 'develop',
      wasFreeform: false,
    });
  });

  test("another format's approvals and questions, in the schema's shapes, and what has no place is lost", () => {
    const { records, lost, text } = write([
      { type: 'run.start', input: 'deploy' },
      {
        type: 'approval.request',
        approval: 'ap-1',
        call: 'call-1',
        tool: 'deploy',
        title: 'Deploy to prod?',
        args: { env: 'prod' },
        effects: ['restarts 3 pods'],
        options: [{ id: 'allow', label: 'Allow', kind: 'allow_once' }],
      },
      { type: 'approval.resolve', approval: 'ap-1', decision: 'allow', by: 'user', option: 'allow' },
      { type: 'approval.request', approval: 'ap-2' },
      { type: 'approval.resolve', approval: 'ap-2', decision: 'deny', by: 'policy' },
      { type: 'approval.request', approval: 'ap-3' },
      { type: 'approval.resolve', approval: 'ap-3', decision: 'deny' },
      { type: 'approval.request', approval: 'ap-4' },
      { type: 'approval.resolve', approval: 'ap-4', decision: 'cancel' },
      {
        type: 'question',
        question: 'q-1',
        call: 'call-2',
        questions: [
          {
            id: 'provider',
            text: 'Which CI?',
            options: [
              { id: 'gha', label: 'GitHub Actions' },
              { id: 'gitlab', label: 'GitLab CI' },
            ],
          },
          { text: 'Which Node?' },
        ],
      },
      { type: 'question.answer', question: 'q-1', answers: { provider: 'GitHub Actions', node: '22' } },
      { type: 'question', question: 'q-2', questions: [] },
      { type: 'run.end', status: 'completed' },
    ]);
    const of = (type: string) =>
      records.filter((r) => r.type === type).map((r) => [r.data, r.ephemeral] as const);
    expect(of('permission.requested')).toEqual([
      [
        {
          requestId: 'ap-1',
          permissionRequest: {
            kind: 'custom-tool',
            toolCallId: 'call-1',
            toolName: 'deploy',
            toolDescription: 'Deploy to prod?',
            args: { env: 'prod' },
          },
        },
        undefined,
      ],
      ...['ap-2', 'ap-3', 'ap-4'].map((id) => [
        { requestId: id, permissionRequest: { kind: 'custom-tool', toolName: '', toolDescription: '' } },
        undefined,
      ]),
    ]);
    expect(of('permission.completed').map(([d]) => d)).toEqual([
      { requestId: 'ap-1', result: { kind: 'approved' } },
      { requestId: 'ap-2', result: { kind: 'denied-by-rules', rules: [] } },
      { requestId: 'ap-3', result: { kind: 'denied-interactively-by-user' } },
      { requestId: 'ap-4', result: { kind: 'cancelled' } },
    ]);
    expect(of('user_input.requested')).toEqual([
      [
        {
          requestId: 'q-1',
          question: 'Which CI?',
          choices: ['GitHub Actions', 'GitLab CI'],
          toolCallId: 'call-2',
        },
        true,
      ],
    ]);
    expect(of('user_input.completed')).toEqual([[{ requestId: 'q-1', answer: 'GitHub Actions' }, true]]);
    expect(lost).toEqual([
      'approval.request.options',
      'approval.request.effects',
      'approval.resolve.option',
      'approval.resolve.by',
      'question.questions',
      'question.answer.answers',
      'question',
    ]);
    expect(copilot.check(text)).toEqual([]);
    // Read back, they say what Copilot can.
    const back = copilot.parse(text).events;
    expect(bare(back, /^approval\.resolve$/)).toEqual([
      { type: 'approval.resolve', approval: 'ap-1', decision: 'allow' },
      { type: 'approval.resolve', approval: 'ap-2', decision: 'deny', by: 'policy' },
      { type: 'approval.resolve', approval: 'ap-3', decision: 'deny', by: 'user' },
      { type: 'approval.resolve', approval: 'ap-4', decision: 'cancel' },
    ]);
    expect(copilot.stringify(back)).toBe(text);
  });
});

describe('copilot.check: permission and user input requests', () => {
  test('one completed that was never requested, and one never completed, are reported', () => {
    const text = `${[
      line('e1', 'session.start', { sessionId: 's' }),
      line('e2', 'permission.requested', { requestId: 'p1', permissionRequest: { kind: 'read', path: 'a' } }),
      line('e3', 'permission.completed', { requestId: 'p2', result: { kind: 'approved' } }),
      line('e4', 'user_input.requested', { requestId: 'p2', question: 'Why?' }, ',"ephemeral":true'),
      line('e5', 'user_input.completed', { requestId: 'u9' }, ',"ephemeral":true'),
      line('e6', 'session.idle', {}),
    ].join('\n')}\n`;
    const found = copilot
      .check(text)
      .map((d) => `${d.severity} @${d.line} ${d.message.replace(/^.*?: /, '')}`);
    expect(found).toEqual([
      'warning @3 permission request "p2" completes but was never requested',
      'warning @5 user input request "u9" completes but was never requested',
      'warning @6 permission request "p1" never completed',
      'warning @6 user input request "p2" never completed',
    ]);
  });
});
