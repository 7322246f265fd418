import { startRefusedAlone } from '../held-args';

// Found by the structured fuzzer (test/fuzz/structured.test.ts). This writer writes a call at its
// end, and checked the call's arguments only then: arguments JSON cannot hold (`1e400` in the
// source reads as Infinity) were refused at the call's end, which was then not written either (an
// error at the end's line about the start's field), or, for a call the stream never ended, at the
// writer's end, where a conversion does not catch a writer's refusal: `convert` threw (not
// strict). Now the start is refused at its own write, reported at its own line.

startRefusedAlone('highbar');
