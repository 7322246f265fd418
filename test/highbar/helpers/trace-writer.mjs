// A concurrent writer process for the tail tests: appends text in random-size writes (so lines
// are split across writes), truncates and recreates the file, on the parent's IPC commands.
import { closeSync, ftruncateSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';

const path = process.argv[2];
let seed = Number(process.argv[3] ?? 1);
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pause = () => new Promise((r) => setTimeout(r, random() < 0.2 ? 3 : 0));

process.on('message', async (msg) => {
  if (msg.op === 'append') {
    const bytes = Buffer.from(msg.text, 'utf8');
    let at = 0;
    while (at < bytes.length) {
      const size = Math.min(bytes.length - at, 1 + Math.floor(random() * 300));
      const fd = openSync(path, 'a');
      writeSync(fd, bytes, at, size);
      closeSync(fd);
      at += size;
      await pause();
    }
  } else if (msg.op === 'truncate') {
    const fd = openSync(path, 'r+');
    ftruncateSync(fd, 0);
    closeSync(fd);
  } else if (msg.op === 'recreate') {
    writeFileSync(`${path}.new`, '');
    renameSync(`${path}.new`, path);
  } else if (msg.op === 'exit') {
    process.exit(0);
  }
  process.send({ done: msg.id });
});
process.send({ ready: true });
