// The bench scripts' command-line flags: `--name value`, or `--name` alone (true).

/** The value after `--name` in the command line, `true` when none follows it, else `fallback`. */
export function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const v = process.argv[i + 1];
  return v === undefined || v.startsWith('--') ? true : v;
}
