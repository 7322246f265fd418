// How the CLI prints an event (src/cli.ts, `decode`): `JSON.stringify(event)`, byte for byte,
// with one shortcut. A `tool.end` often carries its output twice or three times over: a decoder
// gives `text` the same string as `result` or `error` (highbar's tool records), and
// `JSON.stringify` escapes each copy again. Here such an event is written key by key and a string
// that repeats the previous string value is escaped once. Apart from the library, so that a
// property test holds it equal to `JSON.stringify`.

/** `JSON.stringify(event)` for an event object (what the CLI prints per line). */
export function eventJson(event: object): string {
  return repeatsText(event) ? keyByKey(event as Record<string, unknown>) : JSON.stringify(event);
}

// A tool.end whose text is its result or its error: the only events with a repeated string value.
function repeatsText(event: object): boolean {
  const e = event as { type?: unknown; text?: unknown; result?: unknown; error?: unknown; toJSON?: unknown };
  if (e.type !== 'tool.end' || e.toJSON !== undefined) return false;
  const text = e.text;
  return typeof text === 'string' && (text === e.result || text === e.error);
}

// JSON.stringify's own walk of one object (own enumerable string keys in their order; a value
// that stringifies to nothing leaves its key out), each value stringified alone, and the last
// string's JSON reused when the next value is the same string. A value with a toJSON method is
// stringified whole by `JSON.stringify`, which passes toJSON the key.
function keyByKey(event: Record<string, unknown>): string {
  const keys = Object.keys(event);
  let json = '{';
  let lastString: string | undefined;
  let lastJson = '';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = event[key];
    if (typeof value === 'object' && value !== null && 'toJSON' in value) return JSON.stringify(event);
    let text: string | undefined;
    if (typeof value === 'string') {
      if (value !== lastString) {
        lastString = value;
        lastJson = JSON.stringify(value);
      }
      text = lastJson;
    } else text = JSON.stringify(value);
    if (text === undefined) continue;
    json += `${json === '{' ? '' : ','}${JSON.stringify(key)}:${text}`;
  }
  return `${json}}`;
}
