// agentwire/all: everything `agentwire` exports, plus every codec, `convert` and `convertStream`
// between any two formats, `codecs` and `codecFor` (a codec by format id), and the nativeharness
// client. These need every format's code, so they are not in the small `agentwire` entry; an app
// that knows its formats imports them from their own entries (`agentwire/hep`, ...) instead.
export { convert, convertStream } from './convert';
export { type AguiCodec, agui } from './formats/ag-ui/index';
export { type AiSdkCodec, aisdk } from './formats/ai-sdk/index';
export { type AmpCodec, amp } from './formats/amp/index';
export { type ClaudeCodec, claude } from './formats/claude/index';
export { type CodexCodec, codex } from './formats/codex/index';
export { type CopilotCodec, copilot } from './formats/copilot/index';
export { type CursorCodec, cursor } from './formats/cursor/index';
export { type GeminiCodec, gemini } from './formats/gemini/index';
export { type HepCodec, hep } from './formats/hep/codec';
export { type HighbarCodec, highbar } from './formats/highbar/codec';
export { codecFor, codecs } from './formats/index';
export { connect } from './formats/nativeharness/client';
export { type NativeharnessCodec, nativeharness } from './formats/nativeharness/codec';
export { type OpencodeCodec, opencode } from './formats/opencode/index';
// Everything the `agentwire` entry exports. A whole-module re-export is allowed for another public
// entry only (test/api.test.ts): that entry names its exports one by one, so nothing private leaks.
export * from './index';
