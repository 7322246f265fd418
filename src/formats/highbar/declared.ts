import type { AgentEvent } from '../../model';
import { pyFloat } from './pyjson';

/**
 * The set of declared tools as highbar computes it, fed one event at a time: the names from
 * `tools` records (and `hello.tools`) written since the writer's last `hello` — earlier ones are
 * another process's — plus every `fn` seen in a `tool` record.
 */
export class DeclaredTools {
  private sinceHello = new Set<string>();
  private readonly called = new Set<string>();

  /** Takes the next decoded event (any format; only the declaring ones count). */
  add(event: AgentEvent): void {
    switch (event.type) {
      case 'session.start':
        this.sinceHello = new Set(event.tools ?? []);
        return;
      case 'tools.declare':
        for (const name of event.tools) this.sinceHello.add(name);
        return;
      case 'tool.start':
        this.called.add(event.name);
        return;
    }
  }

  /** True when `name` is declared (or was called). */
  has(name: string): boolean {
    return this.sinceHello.has(name) || this.called.has(name);
  }

  /** True when the writer declared nothing since its hello (highbar then warns). */
  get declaredNothing(): boolean {
    return this.sinceHello.size === 0;
  }

  /** The declared names: declarations in order first, then names only seen in calls. */
  names(): string[] {
    const all = new Set(this.sinceHello);
    for (const name of this.called) all.add(name);
    return [...all];
  }
}

/**
 * The tools a trace declares, as highbar computes them: names from `tools` records and
 * `hello.tools` since the last `hello`, plus every `fn` in a `tool` record.
 *
 * @example
 * ```ts
 * declaredTools(highbar.parse(text).events); // ['get_order', 'cancel_order']
 * ```
 */
export function declaredTools(events: Iterable<AgentEvent>): string[] {
  const declared = new DeclaredTools();
  for (const event of events) declared.add(event);
  return declared.names();
}

/** How a number reads as text, in JavaScript's and Python's spelling. */
function readings(n: number): string[] {
  const js = String(n);
  const py = Number.isInteger(n) ? js : pyFloat(n);
  return js === py ? [js] : [js, py];
}

/**
 * True when two correlation values match the way highbar compares them: numbers and text that
 * read the same match (`42` matches `"42"`); anything else must be equal as JSON.
 */
export function sameReading(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'string') return readings(a).includes(b);
  if (typeof a === 'string' && typeof b === 'number') return readings(b).includes(a);
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    return JSON.stringify(a) === JSON.stringify(b);
  }
  return false;
}

/**
 * Keeps the events whose `context` matches `values` on every key of `keys` (highbar's
 * `agent.correlate`; default `['test']`), numbers and text that read the same matching. Events
 * without a context (a `hello`, a `tools`) never match.
 *
 * @example
 * ```ts
 * matchContext(events, { test: '9784235d06704e5da37c3230a9e99b34' });
 * matchContext(events, { conversation_id: 42 }, ['conversation_id']); // also matches "42"
 * ```
 */
export function matchContext(
  events: Iterable<AgentEvent>,
  values: Record<string, unknown>,
  keys: readonly string[] = ['test'],
): AgentEvent[] {
  const out: AgentEvent[] = [];
  for (const event of events) {
    const context = event.context;
    if (context === undefined) continue;
    let match = keys.length > 0;
    for (const key of keys) {
      if (!Object.hasOwn(context, key) || !sameReading(context[key], values[key])) {
        match = false;
        break;
      }
    }
    if (match) out.push(event);
  }
  return out;
}
