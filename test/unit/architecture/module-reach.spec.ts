import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Owners by module, not only by text (docs/architecture.md "Table owners"): a table's owner is an
 * injectable `*.repository.ts` class, and code of another module may inject it only through what
 * its module exports. For every import of a repository class from another top-level folder of
 * src/, a Nest module of the importing folder must import a module that offers the class (exports
 * it, or re-exports a module that does), or the class must be offered by a `@Global()` module.
 * Type-only imports and SQL parts (plain functions and fragments) are not injections and are not
 * checked. Pure file-system checks: the module metadata is read from the `@Module({...})` text.
 */

const SRC = join(__dirname, '..', '..', '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });
}

const all = files(SRC).filter((f) => !f.includes(`${join('database', 'migrations')}`));
const rel = (f: string) => relative(SRC, f).split('\\').join('/');
/** The top-level folder of src/ a file belongs to (its module's folder). */
const folderOf = (f: string) => rel(f).split('/')[0];

interface ModuleFacts {
  name: string;
  folder: string;
  global: boolean;
  imports: string[];
  exports: string[];
}

/** The identifiers of one array property (`imports: [...]`) of a @Module({...}) text. */
function listOf(text: string, key: string): string[] {
  const start = text.search(new RegExp(`\\b${key}:\\s*\\[`));
  if (start < 0) {
    return [];
  }
  let depth = 0;
  let i = text.indexOf('[', start);
  const from = i;
  for (; i < text.length; i++) {
    if (text[i] === '[') {
      depth++;
    }
    if (text[i] === ']' && --depth === 0) {
      break;
    }
  }
  const body = text
    .slice(from + 1, i)
    .replace(/\/\/.*$/gm, '')
    .replace(/\/\*[\s\S]*?\*\//g, '');
  const provided = [...body.matchAll(/provide:\s*(\w+)/g)].map((m) => m[1]);
  const plain = body
    .replace(/\{[^{}]*\}/g, '')
    .split(',')
    .map((s) => s.trim().match(/^(\w+)/)?.[1])
    .filter((s): s is string => !!s);
  return [...plain, ...provided];
}

const MODULES = new Map<string, ModuleFacts>();
for (const f of all.filter((f) => f.endsWith('.module.ts'))) {
  const text = readFileSync(f, 'utf8');
  for (const m of text.matchAll(
    /(@Global\(\)\s*)?@Module\(\{([\s\S]*?)\}\)\s*export class (\w+)/g,
  )) {
    MODULES.set(m[3], {
      name: m[3],
      folder: folderOf(f),
      global: !!m[1],
      imports: listOf(m[2], 'imports'),
      exports: listOf(m[2], 'exports'),
    });
  }
}

/** Classes a module offers to its importers: what it exports, and what exported modules offer. */
function offers(name: string, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  const mod = MODULES.get(name);
  if (!mod || seen.has(name)) {
    return out;
  }
  seen.add(name);
  for (const e of mod.exports) {
    out.add(e);
    for (const o of offers(e, seen)) {
      out.add(o);
    }
  }
  return out;
}

/** Injectable repository classes, by the file that defines them. */
const REPOSITORIES = new Map<string, string[]>();
for (const f of all.filter((f) => f.endsWith('.repository.ts'))) {
  const text = readFileSync(f, 'utf8');
  const classes = [...text.matchAll(/@Injectable\(\)\s*export class (\w+)/g)].map((m) => m[1]);
  if (classes.length > 0) {
    REPOSITORIES.set(f.replace(/\.ts$/, ''), classes);
  }
}

const globallyOffered = new Set(
  [...MODULES.values()].filter((m) => m.global).flatMap((m) => [...offers(m.name)]),
);

describe('table owners are reached through their module', () => {
  it('finds the modules and the repositories', () => {
    expect(MODULES.size).toBeGreaterThan(30);
    expect(REPOSITORIES.size).toBeGreaterThan(20);
  });

  it('imports a repository class only where a module of the importing folder can inject it', () => {
    const unreachable: string[] = [];
    for (const f of all.filter((f) => !f.endsWith('.module.ts'))) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/^import (?!type )\{([^}]*)\} from '(\.{1,2}\/[^']+)'/gm)) {
        const target = resolve(dirname(f), m[2]);
        const classes = REPOSITORIES.get(target);
        if (!classes || folderOf(target + '.ts') === folderOf(f)) {
          continue;
        }
        const names = m[1]
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s && !s.startsWith('type '));
        const folderModules = [...MODULES.values()].filter((mod) => mod.folder === folderOf(f));
        for (const name of names.filter((n) => classes.includes(n))) {
          const reachable =
            globallyOffered.has(name) ||
            folderModules.some((mod) => mod.imports.some((i) => offers(i).has(name)));
          if (!reachable) {
            unreachable.push(`${rel(f)}: ${name}`);
          }
        }
      }
    }
    expect(unreachable).toEqual([]);
  });
});
