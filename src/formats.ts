import type { Codec } from './codec';
import type { Format } from './diagnostics';
import { amp } from './formats/amp/index';
import { codex } from './formats/codex/index';
import { copilot } from './formats/copilot/index';
import { cursor } from './formats/cursor/index';
import { gemini } from './formats/gemini/index';
import { hep } from './formats/hep/index';
import { highbar } from './formats/highbar/index';
import { nativeharness } from './formats/nativeharness/index';
import { opencode } from './formats/opencode/index';

/** Every codec by its format name (the formats this build of agentwire reads and writes). */
export const codecs: Readonly<Partial<Record<Format, Codec>>> = {
  hep,
  highbar,
  nativeharness,
  codex,
  opencode,
  cursor,
  gemini,
  amp,
  copilot,
};

/** The codec of `format`, or `undefined` when this build has none. */
export function codecFor(format: string): Codec | undefined {
  return Object.hasOwn(codecs, format) ? codecs[format as Format] : undefined;
}
