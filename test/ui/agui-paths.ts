import { AGUI_WRITER_SHORTCUTS } from '../../src/formats/ag-ui/encode';
import type { AgentEvent } from '../../src/model';

/** Runs `fn` with the AG-UI writer's shortcuts on, then off (the two paths are held equal). */
export function bothPaths(fn: () => void): void {
  for (const enabled of [true, false]) {
    AGUI_WRITER_SHORTCUTS.enabled = enabled;
    try {
      fn();
    } finally {
      AGUI_WRITER_SHORTCUTS.enabled = true;
    }
  }
}

/**
 * Two runs, each ended with its step open: the writer closes the step (`closing`), read back as
 * a record the run's end carries before it (`hints.before`).
 */
export const RUNS_ENDED_IN_A_STEP: readonly AgentEvent[] = [
  { type: 'run.start', run: 'r1', session: 's' },
  { type: 'text.delta', text: 'hi', round: 1 },
  { type: 'run.end', status: 'completed', durationMs: 5 },
  { type: 'run.start', run: 'r2', session: 's' },
  { type: 'text.delta', text: 'again', round: 1 },
  { type: 'run.end', status: 'completed' },
];
