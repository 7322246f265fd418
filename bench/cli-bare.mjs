// The ceiling row of bench/cli-jq.mjs: what any Node program that reads each line of a JSON
// Lines file and prints it again pays, with nothing of agentwire. It reads the file in 64 KiB
// chunks (a StringDecoder keeps a character cut between two chunks whole), `JSON.parse` and
// `JSON.stringify` each line, and writes one string per chunk with `fs.writeSync`, as
// `agentwire decode` does. `agentwire decode` prints more than this: each event has its
// provenance, and the events of an agent's line are often several.
//
// Usage: node bench/cli-bare.mjs FILE > /dev/null
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const fd = openSync(process.argv[2], 'r');
const buffer = Buffer.allocUnsafe(64 * 1024);
const utf8 = new StringDecoder('utf8');
let rest = '';
for (;;) {
  const n = readSync(fd, buffer, 0, buffer.length, null);
  if (n === 0) break;
  const text = rest + utf8.write(buffer.subarray(0, n));
  let out = '';
  let start = 0;
  for (let end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
    out += `${JSON.stringify(JSON.parse(text.slice(start, end)))}\n`;
  }
  rest = text.slice(start);
  if (out !== '') writeSync(1, out);
}
rest += utf8.end();
if (rest.trim() !== '') writeSync(1, `${JSON.stringify(JSON.parse(rest))}\n`);
closeSync(fd);
