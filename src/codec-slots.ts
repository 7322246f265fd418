// The slots of a line decoder's state (`LineDecoderState`, src/codec.ts), in a module without an
// import for the reason src/framing/split-slots.ts gives. Their own module, not the splitter's:
// the build splits modules into chunks by the entries that import them, and a constant read on
// every line (`readRecord`) must sit in the chunk of the code that reads it, codec.ts's, not be
// an import from the splitter's chunk (an imported binding is a module cell read, checked for
// initialisation, at each use).

/** Slot of a `LineDecoderState`: where the current `push` puts its events. */
export const LD_OUT = 0;
/** Slot of a `LineDecoderState`: the format's record decoder. */
export const LD_RECORDS = 1;
/** Slot of a `LineDecoderState`: the blank lines skipped. */
export const LD_BLANKS = 2;
/** Slot of a `LineDecoderState`: the diagnostic sink. */
export const LD_SINK = 3;
