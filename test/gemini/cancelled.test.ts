import { describe, expect, test } from 'vitest';
import { type Diagnostic, gemini } from '../../src/all';

// A run the user cancelled (Ctrl+C), as Gemini CLI ends it in stream-json. Two emit sites write
// it, both from `new FatalCancellationError('Operation cancelled.')`: `handleCancellationError`
// (the non-interactive loop) writes the message as it is; the agent-session path throws the error
// into `handleError`, which writes it through `parseAndFormatApiError` (`[API Error: …]`). Both
// write `status: "error"`, `stats.duration_ms: 0`, and `error.type` = the error's constructor
// name (`getErrorType`), which a bundled build may spell otherwise (google-gemini/gemini-cli:
// packages/cli/src/utils/errors.ts, nonInteractiveCliAgentSession.ts, core/src/utils/errors.ts).
const head = [
  '{"type":"init","timestamp":"2026-03-19T10:15:30.000Z","session_id":"4c1e9b72-8a3d-4f05-9e6b-2d7a1c5f8e93","model":"auto-gemini-3"}',
  '{"type":"message","timestamp":"2026-03-19T10:15:30.041Z","role":"user","content":"Refactor the parser and run the tests"}',
  '{"type":"message","timestamp":"2026-03-19T10:15:31.214Z","role":"assistant","content":"I\'ll start by reading the parser.","delta":true}',
  '{"type":"tool_use","timestamp":"2026-03-19T10:15:31.520Z","tool_name":"read_file","tool_id":"read_file_1773915331520_0","parameters":{"absolute_path":"/srv/app/src/parser.ts"}}',
  '{"type":"tool_result","timestamp":"2026-03-19T10:15:31.533Z","tool_id":"read_file_1773915331520_0","status":"success","output":""}',
];
const stats =
  '"stats":{"total_tokens":9120,"input_tokens":8870,"output_tokens":58,"cached":0,"input":8870,"duration_ms":0,"tool_calls":1,"models":{"gemini-3-pro-preview":{"total_tokens":9120,"input_tokens":8870,"output_tokens":58,"cached":0,"input":8870}}}';
const result = (type: string, message: string): string =>
  `{"type":"result","timestamp":"2026-03-19T10:15:33.410Z","status":"error","error":{"type":${JSON.stringify(type)},"message":${JSON.stringify(message)}},${stats}}`;
const stream = (last: string): string => `${[...head, last].join('\n')}\n`;

// Another format's cancelled run, as the Gemini writer gets it: written in Gemini CLI's words,
// so it reads back cancelled.
const foreign = [
  { type: 'session.start', session: 's1', model: 'm' },
  { type: 'run.start', input: 'go' },
  { type: 'text.delta', text: 'Working' },
  { type: 'cancel', by: 'user' },
  { type: 'run.end', status: 'cancelled' },
] as const;

describe('a cancelled Gemini run', () => {
  // The error type varies (a class name, renamed by a bundler); the message does not.
  test.each([
    ['handleCancellationError', 'FatalCancellationError', 'Operation cancelled.'],
    ['handleError (agent session)', 'FatalCancellationError', '[API Error: Operation cancelled.]'],
    ['a bundle that renamed the class', 'FatalCancellationError2', 'Operation cancelled.'],
    ['a minified bundle', 'Tq', '[API Error: Operation cancelled.]'],
  ])('%s: the run ends cancelled, and is written back byte for byte', (_site, type, message) => {
    const text = stream(result(type, message));
    const diagnostics: Diagnostic[] = [];
    const { events } = gemini.parse(text, { onDiagnostic: (d) => diagnostics.push(d) });
    expect(diagnostics).toEqual([]);
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: 'run.end', status: 'cancelled', reason: 'error', error: message });
    // A cancellation, not an error of the run: no `error` event (another format's writer would
    // write one as a failure); the line's error type is kept for the writer.
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    const written: Diagnostic[] = [];
    expect(gemini.stringify(events, { onDiagnostic: (d) => written.push(d) })).toBe(text);
    // Gemini's own cancellation reads back cancelled: nothing to report.
    expect(written).toEqual([]);
  });

  test("another format's cancelled run is written as Gemini CLI cancels, and reads back cancelled", () => {
    const written: Diagnostic[] = [];
    const text = gemini.stringify([...foreign], {
      clock: () => Date.parse('2026-03-19T10:15:33.410Z'),
      onDiagnostic: (d) => written.push(d),
    });
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      '{"type":"result","timestamp":"2026-03-19T10:15:33.410Z","status":"error","error":{"type":"FatalCancellationError","message":"Operation cancelled."}}',
    );
    expect(written.filter((d) => d.field?.startsWith('run.end'))).toEqual([]);
    expect(gemini.parse(text).events.at(-1)).toMatchObject({ type: 'run.end', status: 'cancelled' });
  });

  // Any other fatal error is a failure, whatever its type says.
  test.each([
    ['FatalCancellationError', 'Quota exhausted'],
    ['FatalTurnLimitedError', 'Reached max session turns for this session.'],
    ['AbortError', 'Operation cancelled'],
  ])('%s with %j: failed', (type, message) => {
    const { events } = gemini.parse(stream(result(type, message)));
    expect(events.at(-1)).toMatchObject({ type: 'run.end', status: 'failed', reason: 'error' });
  });
});
