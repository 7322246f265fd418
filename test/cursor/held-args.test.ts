import { startRefusedAlone } from '../held-args';

// Found by the structured fuzzer (test/fuzz/structured.test.ts). This writer kept a call's start
// before writing it: arguments JSON cannot hold (`1e400` in the source reads as Infinity) had the
// start refused, and then its end too, which repeats the arguments (a second error, at the end's
// line, about the start's field). Now the start is refused before anything is kept of it.

// (A call never ended was refused once already: its start alone.)
startRefusedAlone('cursor', [true]);
