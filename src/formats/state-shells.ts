import type { Encoder, RecordDecoder } from '../codec';
import type { FramedRecordDecoder, JsonFraming } from '../framing/json-stream';
import type { AgentEvent } from '../model';

// The objects a format's writer and record decoder hand out, shared by the formats whose state is
// an array of slots worked on by module functions (the Amp writer's shape, then the AG-UI, AI SDK
// and Highbar writers' and the Amp, AG-UI and AI SDK record decoders'). Each format wrote the same
// little class around its own two functions; one class here serves them all. The state sits in
// element 0 and the format's functions in the next elements, so an object has no named property
// of its own and every one has the class's initial hidden class, which the class holds: a
// caller's loop optimised around one object's `write` (or `line`) keeps its code at the next one
// and across a full GC, where a literal of closures made per object had a hidden class the GC
// freed and a new call target each time (docs/performance.md, "Amp writer, round six" and "round
// seven"; "Record decoders as classes", round twenty-two).

/**
 * An {@link Encoder} over a writer's state: `write` and `end` call the format's module functions
 * with the state (see the module comment for why one class serves every such writer).
 */
export class StateEncoder<W> implements Encoder {
  declare readonly 0: W;
  declare readonly 1: (w: W, event: AgentEvent) => string;
  declare readonly 2: (w: W) => string;

  /** `w` the writer's state; `write` and `end` the format's functions that take it. */
  constructor(w: W, write: (w: W, event: AgentEvent) => string, end: (w: W) => string) {
    const self = this as { 0: W; 1: typeof write; 2: typeof end };
    self[0] = w;
    self[1] = write;
    self[2] = end;
  }

  /** The text for `event` (the format's `write` on the state). */
  write(event: AgentEvent): string {
    return this[1](this[0], event);
  }

  /** What the format still has to write (its `end` on the state). */
  end(): string {
    return this[2](this[0]);
  }
}

/** A record decoder's `line` over its state (see {@link RecordDecoder.line}). */
export type StateLine<D> = (d: D, text: string, line: number, offset: number, out: AgentEvent[]) => void;

/**
 * A {@link RecordDecoder} over a decoder's state: `line` and `end` call the format's module
 * functions with the state (see the module comment for why one class serves every such decoder).
 */
export class StateRecordDecoder<D> implements RecordDecoder {
  declare readonly 0: D;
  declare readonly 1: StateLine<D>;
  declare readonly 2: (d: D, out: AgentEvent[]) => void;

  /** `d` the decoder's state; `line` and `end` the format's functions that take it. */
  constructor(d: D, line: StateLine<D>, end: (d: D, out: AgentEvent[]) => void) {
    const self = this as { 0: D; 1: typeof line; 2: typeof end };
    self[0] = d;
    self[1] = line;
    self[2] = end;
  }

  /** Reads one record (the format's `line` on the state). */
  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    this[1](this[0], text, line, offset, out);
  }

  /** Ends the stream (the format's `end` on the state). */
  end(out: AgentEvent[]): void {
    this[2](this[0], out);
  }
}

/**
 * A {@link FramedRecordDecoder} over a decoder's state: a {@link StateRecordDecoder} whose
 * `framing` calls the format's function that tells the state the framing.
 */
export class StateFramedDecoder<D> extends StateRecordDecoder<D> implements FramedRecordDecoder {
  declare readonly 3: (d: D, framing: JsonFraming) => void;

  /** As {@link StateRecordDecoder}'s, and `framing` the format's function that takes the framing. */
  constructor(
    d: D,
    line: StateLine<D>,
    end: (d: D, out: AgentEvent[]) => void,
    framing: (d: D, framing: JsonFraming) => void,
  ) {
    super(d, line, end);
    (this as { 3: typeof framing })[3] = framing;
  }

  /** Tells the state the input's framing (the format's function). */
  framing(framing: JsonFraming): void {
    this[3](this[0], framing);
  }
}
