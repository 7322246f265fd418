import type { Codec } from '../codec';
import type { Format } from '../diagnostics';
import { agui } from './ag-ui/index';
import { aisdk } from './ai-sdk/index';
import { amp } from './amp/index';
import { claude } from './claude/index';
import { codex } from './codex/index';
import { copilot } from './copilot/index';
import { cursor } from './cursor/index';
import { gemini } from './gemini/index';
import { hep } from './hep/codec';
import { highbar } from './highbar/codec';
import { nativeharness } from './nativeharness/codec';
import { opencode } from './opencode/index';

/** Every codec by its format name (the formats this build of agentwire reads and writes). */
export const codecs: Readonly<Partial<Record<Format, Codec>>> = {
  hep,
  highbar,
  nativeharness,
  claude,
  codex,
  gemini,
  opencode,
  cursor,
  amp,
  copilot,
  'ag-ui': agui,
  'ai-sdk': aisdk,
};

/** The codec of `format`, or `undefined` when this build has none. */
export function codecFor(format: string): Codec | undefined {
  return Object.hasOwn(codecs, format) ? codecs[format as Format] : undefined;
}
