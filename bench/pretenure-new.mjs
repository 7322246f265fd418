#!/usr/bin/env node
// Whether V8 pretenures objects made by `new` as it does object literals: the same objects, made
// by a literal and by a constructor whose prototype is Object.prototype (a plain object to every
// caller), through the trap of bench/pretenure-trap.mjs (the last eight batches held, a young GC
// forced every ninth batch with the young generation at its largest). Prints, for each, whether
// an object made after the trap is born young. docs/performance.md, "Round twenty-two".
//
//   node --expose-gc --allow-natives-syntax --min-semi-space-size=16 bench/pretenure-new.mjs
const inYoung = new Function('o', 'return %InYoungGeneration(o)');

function Delta(type, text, round) {
  this.type = type;
  this.text = text;
  this.round = round;
}
Delta.prototype = Object.prototype;

const makers = {
  literal: (type, text, round) => ({ type, text, round }),
  new: (type, text, round) => new Delta(type, text, round),
};

for (const [name, make] of Object.entries(makers)) {
  const held = [];
  for (let i = 0; i < 400; i++) {
    const batch = [];
    for (let j = 0; j < 300; j++) batch.push(make('text.delta', `t${j}`, i));
    held.push(batch);
    if (held.length > 8) held.shift();
    if (i % 9 === 8) globalThis.gc({ type: 'minor' });
  }
  const o = make('text.delta', 'x', 1);
  console.log(
    `${name.padEnd(8)} born young after the trap: ${inYoung(o)}; plain object: ${Object.getPrototypeOf(o) === Object.prototype}; ${JSON.stringify(o)}`,
  );
}
