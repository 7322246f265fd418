import { readFileSync } from 'node:fs';
import { transformChunks, verifyEvents } from '@ag-ui/client';
import { EventType } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import {
  createUIMessageStream,
  createUIMessageStreamResponse,
  JsonToSseTransformStream,
  parseJsonEventStream,
  readUIMessageStream,
  streamText,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, agui, aisdk, convert, hep } from '../../src/all';
import { codecFor } from '../../src/formats';
import { listFixtures } from '../../src/node/fixtures';

// Proof with the peers' own code: what agentwire writes is what AG-UI's schemas and verifier and
// the AI SDK's reader accept (and build the right messages from); what the peers' own encoders
// write, agentwire reads without an error and converts to HEP that passes hep.check.

function deterministic() {
  let n = 0;
  return { clock: () => 1767225600000, idSource: () => `id-${++n}` };
}

const errorsOf = (ds: Array<{ severity: string }>) => ds.filter((d) => d.severity === 'error');

/** Every fixture of every format, each framing: the sources of the conversions. */
const sources = listFixtures().map((f) => [`${f.format}/${f.name}`, f] as const);

/** The records of a written stream: SSE `data:` payloads (or JSON Lines, for a stream read so). */
function sseData(text: string): string[] {
  if (!text.startsWith('data: ')) return text.split('\n').filter((l) => l !== '');
  return text
    .split('\n\n')
    .filter((b) => b !== '')
    .map((b) => {
      expect(b.startsWith('data: ')).toBe(true);
      return b.slice(6);
    });
}

describe.each(sources)('AG-UI: %s written as AG-UI', (_label, f) => {
  const bytes = readFileSync(f.path);
  const source = codecFor(f.format)!.parse(bytes);
  const clean = errorsOf(source.diagnostics).length === 0;
  const { output } = convert(bytes, { from: f.format, to: 'ag-ui', ...deterministic() });
  const records = sseData(output).map((d) => JSON.parse(d) as Record<string, unknown>);

  test.runIf(f.format !== 'ag-ui' || clean)('every event validates against @ag-ui/core EventSchema', () => {
    for (const r of records) {
      const checked = EventSchema.safeParse(r);
      expect(checked.success, `${JSON.stringify(r)}: ${JSON.stringify(checked.error?.issues)}`).toBe(true);
    }
  });

  test.runIf(f.format !== 'ag-ui' || clean)(
    'the stream passes @ag-ui/client transformChunks + verifyEvents',
    async () => {
      const seen = await lastValueFrom(
        from(records as never[]).pipe(transformChunks(false), verifyEvents(false), toArray()),
        { defaultValue: [] },
      );
      expect(seen.length).toBeGreaterThanOrEqual(records.length);
    },
  );

  test.runIf(output.startsWith('data: '))(
    'each event is framed byte for byte as @ag-ui/encoder frames it',
    () => {
      const encoder = new EventEncoder();
      const again = records.map((r) => encoder.encodeSSE(r as never)).join('');
      expect(again).toBe(output);
    },
  );
});

interface ToolPart {
  type: string;
  toolCallId: string;
  toolName?: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
}

/** What the canonical events say the UI messages hold (main lane; lanes travel as data parts). */
function expected(events: AgentEvent[]) {
  let text = '';
  let reasoning = '';
  // The content of each step, in order ('text', 'reasoning', 'tool:<id>'; repeats merged).
  const steps: string[][] = [];
  let open = false;
  const say = (token: string) => {
    const step = steps.at(-1)!;
    if (step.at(-1) !== token) step.push(token);
  };
  // One message per run: a call said again in a later run is that message's part.
  type Want = { name?: string; input?: unknown; state: string; output?: unknown; errorText?: string };
  const runs: Array<Map<string, Want>> = [new Map()];
  let tools = runs[0]!;
  const tool = (call: string) => {
    let t = tools.get(call);
    if (t === undefined) tools.set(call, (t = { state: 'input-streaming' }));
    return t;
  };
  const content = () => {
    if (!open) steps.push([]);
    open = true;
  };
  for (const e of events) {
    if (e.lane !== undefined) continue;
    switch (e.type) {
      case 'run.start':
        if (tools.size > 0) runs.push((tools = new Map()));
        open = false;
        break;
      case 'run.end':
        runs.push((tools = new Map()));
        open = false;
        break;
      case 'cancel':
        // A cancellation ends the step it interrupts.
        open = false;
        break;
      case 'round.start':
        steps.push([]);
        open = true;
        break;
      case 'round.end':
        open = false;
        break;
      case 'text.delta':
        if (e.text !== '') {
          content();
          say('text');
        }
        text += e.text;
        break;
      case 'reasoning.delta':
        if (e.text !== '' || e.signature !== undefined || e.redacted !== undefined) {
          content();
          say('reasoning');
        }
        reasoning += e.text;
        break;
      case 'tool.args.delta': {
        content();
        if (!tools.has(e.call)) say(`tool:${e.call}`);
        const t = tool(e.call);
        if (e.name !== undefined) t.name ??= e.name;
        break;
      }
      case 'tool.start': {
        content();
        if (!tools.has(e.call)) say(`tool:${e.call}`);
        const t = tool(e.call);
        t.name = e.name;
        t.input = e.args ?? (e.command !== undefined ? { command: e.command } : {});
        t.state = 'input-available';
        break;
      }
      case 'approval.request':
        if (e.call !== undefined && tools.has(e.call)) tools.get(e.call)!.state = 'approval-requested';
        break;
      case 'approval.resolve':
        for (const t of tools.values()) if (t.state === 'approval-requested') t.state = 'approval-responded';
        break;
      case 'tool.end': {
        content();
        if (!tools.has(e.call)) say(`tool:${e.call}`);
        const t = tool(e.call);
        t.name ??= e.name ?? 'unknown';
        t.input ??= {};
        if (e.denied) t.state = 'output-denied';
        else if (e.ok) {
          t.state = 'output-available';
          t.output = e.result ?? e.text ?? null;
        } else {
          t.state = 'output-error';
          t.errorText =
            typeof e.error === 'string'
              ? e.error
              : (e.text ?? (e.error !== undefined ? JSON.stringify(e.error) : 'failed'));
        }
        break;
      }
      default:
        break;
    }
  }
  return {
    text,
    reasoning,
    steps: steps.filter((st) => st.length > 0),
    tools: runs.flatMap((r) => [...r.entries()]),
  };
}

/** Reads an SSE UI message stream with the `ai` package's own parser and reader. */
async function readWithAi(sse: string) {
  const problems: unknown[] = [];
  const chunks = parseJsonEventStream({
    stream: new Response(sse).body!,
    schema: uiMessageChunkSchema,
  }).pipeThrough(
    new TransformStream<{ success: boolean; value?: UIMessageChunk; error?: unknown }, UIMessageChunk>({
      transform(c, controller) {
        if (c.success) controller.enqueue(c.value!);
        else problems.push(c.error);
      },
    }),
  );
  const errors: string[] = [];
  const messages = new Map<string, UIMessage>();
  for await (const m of readUIMessageStream({
    stream: chunks,
    onError: (e) => errors.push(e instanceof Error ? e.message : String(e)),
  })) {
    messages.set(m.id, m);
  }
  return { problems, errors, messages: [...messages.values()] };
}

describe.each(sources)('AI SDK: %s written as a UI message stream', (_label, f) => {
  const bytes = readFileSync(f.path);
  const source = codecFor(f.format)!.parse(bytes);
  const { output } = convert(bytes, {
    from: f.format,
    to: 'ai-sdk',
    ...deterministic(),
    encode: { framing: 'sse' },
  });
  // A chunk the AI SDK does not know, read from an AI SDK stream, is written back as it came.
  const foreignChunks = source.events.some((e) => e.type === 'unknown' && e.provenance?.format === 'ai-sdk');

  test.runIf(!foreignChunks)(
    'the ai package parses every chunk and builds the messages the canonical events say, part by part',
    async () => {
      const { problems, errors, messages } = await readWithAi(output);
      expect(problems).toEqual([]);
      // The only errors are the stream's own error chunks (a failed run says why).
      const said = sseData(output)
        .filter((d) => d !== '[DONE]')
        .map((d) => JSON.parse(d) as { type: string; errorText?: string })
        .filter((c) => c.type === 'error')
        .map((c) => c.errorText);
      expect(errors).toEqual(said);
      const parts = messages.flatMap((m) => m.parts as Array<{ type: string; text?: string }>);
      const want = expected(source.events);
      expect(
        parts
          .filter((p) => p.type === 'text')
          .map((p) => p.text)
          .join(''),
      ).toBe(want.text);
      expect(
        parts
          .filter((p) => p.type === 'reasoning')
          .map((p) => p.text)
          .join(''),
      ).toBe(want.reasoning);
      // Step boundaries: the content of each step, step by step.
      const got: string[][] = [[]];
      for (const p of parts as Array<{ type: string; toolCallId?: string }>) {
        const token =
          p.type === 'text' || p.type === 'reasoning'
            ? p.type
            : p.type.startsWith('tool-') || p.type === 'dynamic-tool'
              ? `tool:${p.toolCallId}`
              : undefined;
        if (p.type === 'step-start') got.push([]);
        else if (token !== undefined && got.at(-1)!.at(-1) !== token) got.at(-1)!.push(token);
      }
      expect(got.filter((st) => st.length > 0)).toEqual(want.steps);
      const toolParts = parts.filter(
        (p) => p.type.startsWith('tool-') || p.type === 'dynamic-tool',
      ) as ToolPart[];
      expect(toolParts.map((p) => p.toolCallId)).toEqual(want.tools.map(([call]) => call));
      for (const [i, p] of toolParts.entries()) {
        const t = want.tools[i]![1];
        expect(p.type === 'dynamic-tool' ? p.toolName : p.type.slice(5)).toBe(t.name ?? 'unknown');
        expect(p.state).toBe(t.state);
        if (t.input !== undefined) expect(p.input).toEqual(t.input);
        if (t.state === 'output-available') expect(p.output).toEqual(t.output);
        if (t.state === 'output-error') expect(p.errorText).toBe(t.errorText);
      }
    },
  );
});

describe('the peers write, agentwire reads', () => {
  const T = 1767225600000;
  const aguiEvents = [
    { type: EventType.RUN_STARTED, threadId: 't1', runId: 'r1', timestamp: T },
    { type: EventType.STEP_STARTED, stepName: 'plan' },
    { type: EventType.REASONING_START, messageId: 'rs1' },
    { type: EventType.REASONING_MESSAGE_START, messageId: 'rs1', role: 'reasoning' },
    { type: EventType.REASONING_MESSAGE_CONTENT, messageId: 'rs1', delta: 'think' },
    { type: EventType.REASONING_MESSAGE_END, messageId: 'rs1' },
    { type: EventType.REASONING_END, messageId: 'rs1' },
    { type: EventType.TEXT_MESSAGE_START, messageId: 'm1', role: 'assistant' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm1', delta: 'Hello "world" \u2028 ✓' },
    { type: EventType.TEXT_MESSAGE_END, messageId: 'm1' },
    { type: EventType.TOOL_CALL_START, toolCallId: 'c1', toolCallName: 'search', parentMessageId: 'm1' },
    { type: EventType.TOOL_CALL_ARGS, toolCallId: 'c1', delta: '{"q":"x"}' },
    { type: EventType.TOOL_CALL_END, toolCallId: 'c1' },
    { type: EventType.TOOL_CALL_RESULT, messageId: 'tm1', toolCallId: 'c1', content: 'found', role: 'tool' },
    { type: EventType.STATE_SNAPSHOT, snapshot: { n: 1 } },
    { type: EventType.STATE_DELTA, delta: [{ op: 'replace', path: '/n', value: 2 }] },
    { type: EventType.MESSAGES_SNAPSHOT, messages: [{ id: 'u', role: 'user', content: 'hi' }] },
    { type: EventType.RAW, event: { any: 'thing' }, source: 'openai' },
    { type: EventType.CUSTOM, name: 'app.event', value: { k: 1 } },
    { type: EventType.SUBAGENT_STARTED, subagentRunId: 's1', name: 'helper', parentToolCallId: 'c1' },
    { type: EventType.TEXT_MESSAGE_START, messageId: 'm2', role: 'assistant', subagentRunId: 's1' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm2', delta: 'sub', subagentRunId: 's1' },
    { type: EventType.TEXT_MESSAGE_END, messageId: 'm2', subagentRunId: 's1' },
    { type: EventType.SUBAGENT_FINISHED, subagentRunId: 's1', outcome: { type: 'success' } },
    { type: EventType.STEP_FINISHED, stepName: 'plan' },
    {
      type: EventType.RUN_FINISHED,
      threadId: 't1',
      runId: 'r1',
      outcome: { type: 'interrupt', interrupts: [{ id: 'i1', reason: 'human_approval', toolCallId: 'c1' }] },
    },
    {
      type: EventType.RUN_STARTED,
      threadId: 't1',
      runId: 'r2',
      input: {
        threadId: 't1',
        runId: 'r2',
        messages: [],
        resume: [{ interruptId: 'i1', status: 'resolved', payload: { approved: true } }],
      },
    },
    { type: EventType.RUN_ERROR, message: 'boom', code: 'E1' },
  ];

  test('AG-UI EventEncoder output: no error diagnostic, written back byte for byte, HEP that passes hep.check', async () => {
    const encoder = new EventEncoder();
    const sse = aguiEvents.map((e) => encoder.encodeSSE(e as never)).join('');
    await lastValueFrom(from(aguiEvents as never[]).pipe(verifyEvents(false), toArray()));
    const parsed = agui.parse(sse);
    expect(errorsOf(parsed.diagnostics)).toEqual([]);
    expect(agui.stringify(parsed.events)).toBe(sse);
    const toHep = convert(sse, { from: 'ag-ui', to: 'hep', ...deterministic() });
    expect(hep.check(toHep.output)).toEqual([]);
    expect(convert(sse, { to: 'hep', ...deterministic() }).from).toBe('ag-ui');
  });

  const aiChunks: UIMessageChunk[] = [
    { type: 'start', messageId: 'msg-1' },
    { type: 'start-step' },
    { type: 'reasoning-start', id: 'r' },
    { type: 'reasoning-delta', id: 'r', delta: 'hmm' },
    { type: 'reasoning-end', id: 'r' },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'Hi "there"' },
    { type: 'text-end', id: 't' },
    { type: 'tool-input-start', toolCallId: 'c1', toolName: 'weather' },
    { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: '{"city":"Oslo"}' },
    { type: 'tool-input-available', toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } },
    { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
    { type: 'tool-output-available', toolCallId: 'c1', output: { temp: -3 } },
    { type: 'tool-input-available', toolCallId: 'c2', toolName: 'fail', input: {} },
    { type: 'tool-output-error', toolCallId: 'c2', errorText: 'nope' },
    { type: 'data-chart', data: { points: [1, 2] } },
    { type: 'source-url', sourceId: 's', url: 'https://example.com' },
    { type: 'finish-step' },
    { type: 'finish', finishReason: 'stop', messageMetadata: { usage: { inputTokens: 5, outputTokens: 2 } } },
  ];

  async function uiStreamText(chunks: UIMessageChunk[]): Promise<string> {
    const stream = createUIMessageStream({
      execute: ({ writer }) => {
        for (const c of chunks) writer.write(c);
      },
    });
    let text = '';
    const reader = stream.pipeThrough(new JsonToSseTransformStream()).getReader();
    for (;;) {
      const r = await reader.read();
      if (r.done) return text;
      text += r.value;
    }
  }

  test('AI SDK createUIMessageStream output: no error diagnostic, written back byte for byte, HEP that passes hep.check', async () => {
    const sse = await uiStreamText(aiChunks);
    const parsed = aisdk.parse(sse);
    expect(errorsOf(parsed.diagnostics)).toEqual([]);
    expect(aisdk.stringify(parsed.events)).toBe(sse);
    const toHep = convert(sse, { from: 'ai-sdk', to: 'hep', ...deterministic() });
    expect(hep.check(toHep.output)).toEqual([]);
    expect(convert(sse, { to: 'hep', ...deterministic() }).from).toBe('ai-sdk');
  });

  test('AI SDK streamText (a mock model) → toUIMessageStreamResponse: read with no error, HEP that passes hep.check', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          { type: 'reasoning-start', id: 'r1' },
          { type: 'reasoning-delta', id: 'r1', delta: 'Weighing it.' },
          { type: 'reasoning-end', id: 'r1' },
          { type: 'text-start', id: 't1' },
          { type: 'text-delta', id: 't1', delta: 'Hello, ' },
          { type: 'text-delta', id: 't1', delta: 'world!' },
          { type: 'text-end', id: 't1' },
          {
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: {
              inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 5, text: 3, reasoning: 2 },
            },
          },
        ]),
      }),
    } as never);
    const result = streamText({ model, prompt: 'hi' });
    const response = result.toUIMessageStreamResponse({ sendReasoning: true });
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const sse = await response.text();
    const parsed = aisdk.parse(sse);
    expect(errorsOf(parsed.diagnostics)).toEqual([]);
    expect(
      parsed.events
        .filter((e) => e.type === 'text.delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('Hello, world!');
    expect(aisdk.stringify(parsed.events)).toBe(sse);
    expect(hep.check(convert(sse, { from: 'ai-sdk', to: 'hep', ...deterministic() }).output)).toEqual([]);
  });

  test('aisdk.toResponse: the headers createUIMessageStreamResponse sets, a body the ai package reads', async () => {
    const theirs = createUIMessageStreamResponse({ stream: createUIMessageStream({ execute: () => {} }) });
    const events = hep.parse(readFileSync('fixtures/hep/tool-then-text.jsonl')).events;
    const ours = aisdk.toResponse(events);
    for (const [k, v] of theirs.headers) expect(ours.headers.get(k)).toBe(v);
    const { problems, errors, messages } = await readWithAi(await ours.text());
    expect(problems).toEqual([]);
    expect(errors).toEqual([]);
    expect(messages.length).toBeGreaterThan(0);
  });
});
