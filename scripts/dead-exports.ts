// Exports of src/ that no file imports: DEAD (not used in its own file either: delete it) or
// LOCAL (used only in its own file: drop `export`). Imports are read from src, test, scripts and
// bin (static, dynamic and `import type`); a namespace or dynamic import counts every export of
// its module as used. Entry points read by name at run time (src/sea-main.ts's trainCommander,
// the vendor bundles' `modules`) are listed too: keep those. Run: node scripts/dead-exports.ts
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;

function sourceFiles(): string[] {
  const files: string[] = [];
  for (const dir of ['src', 'test', 'scripts', 'bin']) {
    for (const f of fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })) {
      if (SOURCE.test(f) && !f.includes('node_modules') && !f.endsWith('.d.ts')) files.push(path.join(ROOT, dir, f));
    }
  }
  for (const f of fs.readdirSync(ROOT)) if (/\.(ts|mjs)$/.test(f)) files.push(path.join(ROOT, f));
  return files;
}

function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const p = path.resolve(path.dirname(from), spec);
  for (const c of [p, `${p}.ts`, `${p}.tsx`, p.replace(/\.js$/, '.ts'), p.replace(/\.js$/, '.tsx'), path.join(p, 'index.ts')]) {
    if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  }
  return null;
}

const used = new Map<string, Set<string>>(); // module file → names imported from it ('*': all)
const mark = (file: string | null, name: string) => {
  if (!file) return;
  if (!used.has(file)) used.set(file, new Set());
  used.get(file)!.add(name);
};
type Exported = { name: string; line: number; reexport?: boolean };
const exportsOf = new Map<string, Exported[]>();
const texts = new Map<string, string>();

for (const file of sourceFiles()) {
  const text = fs.readFileSync(file, 'utf8');
  texts.set(file, text);
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
  const found: Exported[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const target = resolve(file, n.moduleSpecifier.text);
      const c = n.importClause;
      if (!c) mark(target, '*side');
      else {
        if (c.name) mark(target, 'default');
        if (c.namedBindings && ts.isNamespaceImport(c.namedBindings)) mark(target, '*');
        else if (c.namedBindings) for (const el of c.namedBindings.elements) mark(target, (el.propertyName ?? el.name).text);
      }
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      const target = resolve(file, n.moduleSpecifier.text);
      if (n.exportClause && ts.isNamedExports(n.exportClause)) {
        for (const el of n.exportClause.elements) {
          mark(target, (el.propertyName ?? el.name).text);
          found.push({ name: el.name.text, line: line(el), reexport: true });
        }
      } else mark(target, '*');
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = n.arguments;
      if (arg && ts.isStringLiteral(arg)) mark(resolve(file, arg.text), '*');
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      const target = resolve(file, n.argument.literal.text);
      mark(target, n.qualifier && ts.isIdentifier(n.qualifier) ? n.qualifier.text : '*');
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  for (const st of sf.statements) {
    const mods = ts.canHaveModifiers(st) ? (ts.getModifiers(st) ?? []) : [];
    if (!mods.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    if (mods.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)) found.push({ name: 'default', line: line(st) });
    else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) found.push({ name: d.name.text, line: line(st) });
    } else if (
      (ts.isFunctionDeclaration(st) ||
        ts.isClassDeclaration(st) ||
        ts.isInterfaceDeclaration(st) ||
        ts.isTypeAliasDeclaration(st) ||
        ts.isEnumDeclaration(st)) &&
      st.name
    ) {
      found.push({ name: st.name.text, line: line(st) });
    }
  }
  exportsOf.set(file, found);
}

const rows: string[] = [];
for (const [file, found] of exportsOf) {
  if (!file.startsWith(path.join(ROOT, 'src') + path.sep)) continue;
  const names = used.get(file) ?? new Set<string>();
  if (names.has('*')) continue;
  for (const e of found) {
    if (e.reexport || names.has(e.name)) continue;
    const uses = (texts.get(file)!.match(new RegExp(`\\b${e.name}\\b`, 'g')) ?? []).length;
    rows.push(`${uses > 1 ? 'LOCAL' : 'DEAD '} ${path.relative(ROOT, file)}:${e.line} ${e.name}`);
  }
}
console.log(rows.sort().join('\n') || 'none');
