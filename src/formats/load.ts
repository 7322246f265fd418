import type { CheckingCodec } from '../codec';
import type { Format } from '../diagnostics';

// The codecs by format, each module loaded on first use: what the command line runs on, so a
// command loads and compiles only the codecs it runs (docs/performance.md "The CLI against jq").
// The same formats in the same order, and the same objects, as `codecs` (src/formats/index.ts):
// test/engine.test.ts holds both. A new format adds its line here too.
const LOADERS: Readonly<Partial<Record<Format, () => Promise<CheckingCodec>>>> = {
  hep: async () => (await import('./hep/codec')).hep,
  highbar: async () => (await import('./highbar/codec')).highbar,
  nativeharness: async () => (await import('./nativeharness/codec')).nativeharness,
  claude: async () => (await import('./claude/index')).claude,
  codex: async () => (await import('./codex/index')).codex,
  gemini: async () => (await import('./gemini/index')).gemini,
  opencode: async () => (await import('./opencode/index')).opencode,
  cursor: async () => (await import('./cursor/index')).cursor,
  amp: async () => (await import('./amp/index')).amp,
  copilot: async () => (await import('./copilot/index')).copilot,
  'ag-ui': async () => (await import('./ag-ui/index')).agui,
  'ai-sdk': async () => (await import('./ai-sdk/index')).aisdk,
};

/** The formats this build has a codec for, in the registry's order (`Object.keys(codecs)`). */
export const CODEC_FORMATS: readonly Format[] = Object.keys(LOADERS) as Format[];

/** Loads the codec of `format` (its modules only); `undefined` when this build has none. */
export async function loadCodec(format: string): Promise<CheckingCodec | undefined> {
  return Object.hasOwn(LOADERS, format) ? LOADERS[format as Format]!() : undefined;
}
