import type { Codec, Diagnostic } from '../../src/all';

/**
 * Decodes `bytes` cut at `cuts` (each taken modulo the length plus one, in order) with a decoder
 * shortcut's switch set to `on` (and restored after): the events as JSON text with own
 * `undefined` fields shown (unlike in `JSON.stringify`'s, so a hint's record keeps its keys in
 * order), the diagnostics, and the bytes written back. The UI shortcut properties compare it with
 * the switch on and off.
 */
export function decodeSwitched(
  codec: Codec,
  flag: { enabled: boolean },
  on: boolean,
  bytes: Uint8Array,
  cuts: number[],
  maxDepth?: number,
) {
  const was = flag.enabled;
  flag.enabled = on;
  try {
    const diagnostics: Diagnostic[] = [];
    const onDiagnostic = (x: Diagnostic) => diagnostics.push(x);
    const d = codec.createDecoder(maxDepth === undefined ? { onDiagnostic } : { maxDepth, onDiagnostic });
    const events = [];
    let at = 0;
    for (const cut of [...cuts].sort((a, b) => a - b)) {
      const to = cut % (bytes.length + 1);
      if (to < at) continue;
      events.push(...d.push(bytes.subarray(at, to)));
      at = to;
    }
    events.push(...d.push(bytes.subarray(at)), ...d.end());
    const json = JSON.stringify(events, (_k, v) => (v === undefined ? '<undefined>' : v));
    return { json, diagnostics, written: codec.stringify(events) };
  } finally {
    flag.enabled = was;
  }
}
