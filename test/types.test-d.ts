import { describe, expectTypeOf, test } from 'vitest';
import type * as z from 'zod/mini';
import {
  type AgentEvent,
  type AgentEventOf,
  type AgentEventSchema,
  type AgentwireError,
  type Decoder,
  type Diagnostic,
  type DiagnosticCode,
  type Format,
  hep,
  type ParseResult,
  type ToolEndSchema,
  type Usage,
} from '../src/all';

// Type tests: checked by vitest's typecheck mode (`vitest run` with `typecheck` on: tsc reads
// these files and each failing assertion fails its test), and by `npm run typecheck`.
describe('types come from the zod schemas', () => {
  test('AgentEvent is z.infer of AgentEventSchema', () => {
    expectTypeOf<AgentEvent>().toEqualTypeOf<z.infer<typeof AgentEventSchema>>();
    expectTypeOf<AgentEventOf<'tool.end'>>().toEqualTypeOf<z.infer<typeof ToolEndSchema>>();
  });

  test('the union narrows on type', () => {
    const e = {} as AgentEvent;
    if (e.type === 'tool.end') {
      expectTypeOf(e.ok).toEqualTypeOf<boolean>();
      expectTypeOf(e.call).toEqualTypeOf<string>();
    }
    if (e.type === 'round.end') expectTypeOf(e.usage).toEqualTypeOf<Usage | undefined>();
  });

  test('optional fields are exact (no explicit undefined)', () => {
    // @ts-expect-error exactOptionalPropertyTypes: an absent field is absent, not undefined
    const bad: AgentEventOf<'text.delta'> = { type: 'text.delta', text: 'x', ts: undefined };
    void bad;
  });

  test('type strings are a literal union, never a string', () => {
    expectTypeOf<AgentEvent['type']>().not.toEqualTypeOf<string>();
    expectTypeOf<'tool.start'>().toExtend<AgentEvent['type']>();
    expectTypeOf<DiagnosticCode>().toExtend<string>();
    expectTypeOf<'line_too_long'>().toExtend<DiagnosticCode>();
  });
});

describe('codec signatures', () => {
  test('parse, createDecoder, decode', () => {
    expectTypeOf(hep.parse).returns.toEqualTypeOf<ParseResult>();
    expectTypeOf(hep.createDecoder()).toEqualTypeOf<Decoder>();
    expectTypeOf(hep.decode([''])).toEqualTypeOf<AsyncIterable<AgentEvent>>();
    expectTypeOf(hep.check('')).toEqualTypeOf<Diagnostic[]>();
  });

  test('AgentwireError carries a diagnostic and a literal type tag', () => {
    expectTypeOf<AgentwireError['type']>().toEqualTypeOf<'AgentwireError'>();
    expectTypeOf<AgentwireError['diagnostic']>().toEqualTypeOf<Diagnostic>();
  });
});

describe('convertWith takes codecs, convert takes format ids', () => {
  test('from and to', async () => {
    const { convert, convertWith, agui } = await import('../src/all');
    expectTypeOf(convertWith('', { from: hep, to: agui }).from).toEqualTypeOf<Format>();
    // @ts-expect-error: a format id is convert's; convertWith wants the codec
    convertWith('', { from: 'hep', to: agui });
    // @ts-expect-error: and convert wants the id
    convert('', { from: hep, to: 'ag-ui' });
  });
});
