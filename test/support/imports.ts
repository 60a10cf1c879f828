/** The import graph of src/: which source file imports which (relative imports, type-only ones included). */
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
/** `from '…'`, `import '…'` and `import('…')` specifiers. */
export const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : /\.(ts|mts|js)$/.test(e.name) ? [path.join(dir, e.name)] : [],
  );
}

/** Absolute paths of the files `file` imports relatively (`./x.js` is the source `./x.ts`). */
export function relativeImports(file: string): string[] {
  const found: string[] = [];
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
    if (spec.startsWith('.')) found.push(path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'));
  }
  return found;
}

/** `import type …` and `export type … from` lines: the compiler erases them, so nothing loads them at run time. */
const TYPE_ONLY = /\b(?:import|export)\s+type\s[^;]*?from\s*['"][^'"]+['"]/g;
/** `typeof import('…')` in a type annotation is erased too. */
const TYPE_QUERY = /\btypeof\s+import\s*\(\s*['"][^'"]+['"]\s*\)/g;

/**
 * Import and re-export statements at the start of a line, side-effect imports and `import('…')`: stricter than
 * SPECIFIER, which also matches `'from', '…'` in a list of strings (harmless for relative paths, not for packages).
 */
const STATEMENT = /^\s*(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** Specifiers of the imports that survive compilation (static and dynamic), type-only ones left out. */
function runtimeSpecifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(TYPE_ONLY, '').replace(TYPE_QUERY, '');
  return [...text.matchAll(STATEMENT)].map(([, from, bare, dynamic]) => from ?? bare ?? dynamic);
}

/** Every source file that running `entries` loads, following relative imports that survive compilation. */
export function loadedFiles(entries: string[]): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of runtimeSpecifiers(file)) if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'));
  };
  for (const entry of entries) visit(entry);
  return [...seen].sort();
}

/** The npm packages `file` loads at run time: `@scope/name` or `name`, Node's built-in modules left out. */
export function packageImports(file: string): string[] {
  const names = runtimeSpecifiers(file)
    .filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:') && !builtinModules.includes(spec))
    .map((spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/'));
  return [...new Set(names)];
}

/** Every import cycle's files (strongly connected components of more than one file, or a file importing itself). */
export function importCycles(files: string[], importsOf: (file: string) => string[] = relativeImports): string[][] {
  const edges = new Map(files.map((f) => [f, importsOf(f)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}
