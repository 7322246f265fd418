import { expect, test } from 'vitest';
import { isAgentwireError } from '../../src/diagnostics';
import { nhSseRetry } from '../../src/formats/nativeharness/wire';
import { formatSseEvent } from '../../src/framing/sse';
import { unencodable } from '../../src/json';
import { sourcesWhere } from './source-files';

// A writer's refusal is built by one function (src/json.ts `unencodable`), so every refusal carries
// the same fields: `code`, `severity`, `message` and, when the writer names it, `format`.

test("no source builds an 'unencodable' error by hand outside src/json.ts", () => {
  const found = sourcesWhere((text) => text.includes("code: 'unencodable'"));
  expect(found.filter((p) => p !== 'src/json.ts')).toEqual([]);
});

test('unencodable: the fields a hand-built refusal had, format only when given', () => {
  expect(unencodable('m', 'codex').diagnostic).toStrictEqual({
    code: 'unencodable',
    severity: 'error',
    message: 'm',
    format: 'codex',
  });
  expect(unencodable('m', undefined).diagnostic).toStrictEqual({
    code: 'unencodable',
    severity: 'error',
    message: 'm',
  });
  expect(unencodable('m', undefined).message).toBe('m');
});

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

test('the SSE and retry refusals keep their fields', () => {
  const sse = thrown(() => formatSseEvent({ event: 'a\nb', data: '{}' }));
  expect(isAgentwireError(sse) && sse.diagnostic).toStrictEqual({
    code: 'unencodable',
    severity: 'error',
    message: 'SSE event "a\\nb" contains CR, LF or NUL; writing it would let it inject fields or events',
    format: 'nativeharness',
  });
  const retry = thrown(() => nhSseRetry(-1));
  expect(isAgentwireError(retry) && retry.diagnostic).toStrictEqual({
    code: 'unencodable',
    severity: 'error',
    message: 'retry: -1 is no wait an SSE reader takes (ASCII digits only)',
    format: 'nativeharness',
  });
});
