import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, test, vi } from 'vitest';

// Runs every ```ts example of the README against the sources, and checks the printed values that
// the example states in `// …` comments right after a console.log (where the comment is exact).

const readme = readFileSync('README.md', 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
const dir = resolve('test/.readme');
const src = resolve('src');
// Entries whose source is not src/formats/<entry>/index.ts.
const ENTRY_SOURCES: Record<string, string> = {
  node: 'node/index',
  fixtures: 'node/fixtures',
  otel: 'otel/index',
  all: 'all',
};

// The printed value each console.log states: the `// …` lines right after it, else the `// …`
// at the end of its own line. Every console.log gets an entry (undefined: nothing stated).
function expectations(code: string): Array<string | undefined> {
  const out: Array<string | undefined> = [];
  const lines = code.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!/console\.log\(/.test(line)) continue;
    const comment: string[] = [];
    for (let j = i + 1; j < lines.length && lines[j]!.startsWith('// '); j++)
      comment.push(lines[j]!.slice(3));
    const inline = /\);\s*\/\/ (.*)$/.exec(line)?.[1];
    out.push(comment.length > 0 ? comment.join('\n') : inline);
  }
  return out;
}

describe('README examples', () => {
  mkdirSync(dir, { recursive: true });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('there are examples', () => {
    expect(blocks.length).toBeGreaterThan(3);
  });

  blocks.forEach((code, i) => {
    test(`example ${i + 1} runs and prints what it says`, async () => {
      const file = `${dir}/example-${i + 1}.ts`;
      writeFileSync(
        file,
        code
          .replace(/from 'agentwire'/g, `from '${src}/index'`)
          .replace(
            /from 'agentwire\/([\w-]+)'/g,
            (_m, f: string) => `from '${src}/${ENTRY_SOURCES[f] ?? `formats/${f}/index`}'`,
          ),
      );
      const printed: string[] = [];
      const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
        printed.push(
          args.map((a) => (typeof a === 'string' ? a : inspect(a, { breakLength: Infinity }))).join(' '),
        );
      });
      try {
        await import(/* @vite-ignore */ file);
      } finally {
        spy.mockRestore();
      }
      const expected = expectations(code);
      expected.forEach((want, k) => {
        if (want === undefined) return;
        const got = printed[k]!;
        if (want.includes('…') && !got.includes('…')) {
          const [head] = want.split('…');
          expect(got.startsWith(head!)).toBe(true);
        } else if (want.startsWith('[')) {
          expect(got.replace(/\s+/g, '')).toBe(want.replace(/\s+/g, ''));
        } else expect(got.trimEnd()).toBe(want);
      });
    });
  });
});
