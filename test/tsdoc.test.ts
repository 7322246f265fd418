import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';

// Every exported declaration of the library carries TSDoc (a /** … */ comment).
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('every export has TSDoc', () => {
  const missing: string[] = [];
  for (const file of files('src')) {
    if (file === 'src/cli.ts') continue; // an executable, no exports
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    for (const node of source.statements) {
      const exported =
        ts.canHaveModifiers(node) &&
        ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (!exported || ts.isExportDeclaration(node)) continue;
      const docs = ts.getJSDocCommentsAndTags(node);
      if (docs.length === 0) {
        const name =
          (node as { name?: ts.Identifier }).name?.text ??
          (ts.isVariableStatement(node)
            ? node.declarationList.declarations.map((d) => d.name.getText()).join(',')
            : '?');
        missing.push(`${file}: ${name}`);
      }
    }
  }
  expect(missing).toEqual([]);
});
