import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root. */
export const ROOT: string = join(__dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The `.ts` files under src/ whose text `matches`, as paths from the root (`src/json.ts`). */
export function sourcesWhere(matches: (text: string) => boolean): string[] {
  return files(join(ROOT, 'src'))
    .filter((p) => matches(readFileSync(p, 'utf8')))
    .map((p) => p.slice(ROOT.length + 1));
}
