import { expect, test, vi } from 'vitest';
import { nativeharness } from '../../src/formats/nativeharness/index';
import * as sse from '../../src/framing/sse';
import type { AgentEvent } from '../../src/model';

// Round thirty-three: the up-front check of an own `unknown` record's SSE event name formatted a
// whole SSE event to see whether the formatter refused it, and `frame` formatted it again for the
// write. The check now looks at the names alone: a record is formatted once, with the same bytes.
vi.mock('../../src/framing/sse', async (original) => {
  const actual = await original<typeof sse>();
  return { ...actual, formatSseJsonEvent: vi.fn(actual.formatSseJsonEvent) };
});

test('an own unknown record under SSE is formatted once, its bytes unchanged', () => {
  const e = nativeharness.createEncoder({ framing: 'sse', clock: () => 0, idSource: () => 'id' });
  const record: AgentEvent = {
    type: 'unknown',
    record: { seq: 9, type: 'zz_new', payload: {} },
    provenance: { format: 'nativeharness', line: 1, offset: 0 },
  };
  const format = vi.mocked(sse.formatSseJsonEvent);
  format.mockClear();
  expect(e.write(record)).toBe('id: 9\nevent: zz_new\ndata: {"seq":9,"type":"zz_new","payload":{}}\n\n');
  expect(format).toHaveBeenCalledTimes(1);
});
