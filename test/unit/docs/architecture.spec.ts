import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { tsFilesUnder } from '../../support/source-files';

/**
 * docs/architecture.md promises that every file, class and function it names exists, and that it
 * reads well: each module appears once in the module map (with its own section below), and no
 * table cell grows into a paragraph. This keeps the promise: every backticked repository path must exist, and every backticked code name
 * (`ClassName`, `ClassName.method`, `functionName()`, `camelCaseName`, `@Decorator()`) must be
 * defined somewhere in src/. Pure file-system checks; no database, no Nest.
 *
 * Deliberately not checked (they are not code names): anything with spaces or quotes, SQL and
 * statuses in lower case (`settled`, `for_no_key_update`), HTTP routes (`/v1/…`), CAPS names
 * (env vars and constants), `lower.dotted` names (events such as `intent.settled`), and the few
 * library names in EXTERNAL. Write something not yet built without backticks.
 */

const ROOT = join(__dirname, '..', '..', '..');
const DOC = 'docs/architecture.md';

/** Names from Node, TypeScript, Nest, TypeORM and Bull that the page mentions. */
const EXTERNAL = new Set([
  'AsyncLocalStorage',
  'BigInt',
  'EntityManager',
  'Global',
  'Object',
  'Process',
  'Processor',
  'ValidationPipe',
]);

/** Top-level folders a backticked path may start with (besides src/ module folders, see below). */
const ROOT_DIRS = ['src', 'test', 'docs', 'views', 'bench', 'scripts', 'openapi'];
const FILE_EXTENSION = /\.(ts|js|mjs|cjs|json|md|hbs|css|sql|ya?ml)$/;

function sourceTexts(dir: string): string[] {
  return tsFilesUnder(dir).map((path) => readFileSync(path, 'utf8'));
}

/** Inline code spans of the page, outside fenced blocks. */
function codeSpans(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1].trim());
}

const DECLARATION =
  /^[ \t]*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:class|interface|type|enum|function\*?|const|let)\s+([A-Za-z_$][\w$]*)/gm;
const MODIFIERS = '(?:(?:public|private|protected|static|readonly|override|async|get|set)\\s+)*';
/** A method or property definition at the start of a line: `name(`, `async name<T>(`, `name:`, `name?:`. */
const MEMBER = new RegExp(
  `^[ \\t]*${MODIFIERS}([A-Za-z_$][\\w$]*)(?:\\s*<[^>\\n]*>)?\\s*(?:\\(|\\??\\s*:)`,
  'gm',
);

/** Per file: what it declares (`class X`, `function x`, `const x`…) and the members it defines. */
interface Definitions {
  declared: Set<string>;
  defined: Set<string>;
}

function definitionsOf(text: string): Definitions {
  const declared = new Set([...text.matchAll(DECLARATION)].map((m) => m[1]));
  const defined = new Set([...declared, ...[...text.matchAll(MEMBER)].map((m) => m[1])]);
  return { declared, defined };
}

type Check =
  { kind: 'path'; span: string; path: string } | { kind: 'name'; span: string; name: string };

/** What a span asks to exist, or null when it is not a repository path or code name. */
function checkOf(span: string, srcDirs: Set<string>): Check | null {
  const pathLike = /^([\w.@-]+\/)+[\w.@[\]-]*(?::.*)?$/.exec(span);
  if (pathLike) {
    const path = span.replace(/:.*$/, '');
    const first = path.split('/')[0];
    if (ROOT_DIRS.includes(first) || srcDirs.has(first) || FILE_EXTENSION.test(path)) {
      return { kind: 'path', span, path };
    }
    return null;
  }
  // `Name`, `Name.member`, `name()`, `Name.member(args…)`, `@Decorator()`.
  const code = /^@?([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?(\(.*\))?$/.exec(span);
  if (!code) {
    return null;
  }
  const [, head, member, call] = code;
  if (/^[A-Z0-9_]+$/.test(head) || head.includes('_') || (member && !/^[A-Z]/.test(head))) {
    return null; // CAPS (env vars, constants), snake_case (SQL, codes), lower.dotted (events)
  }
  if (!member && !call && !/[A-Z]/.test(head)) {
    return null; // a bare lower-case word: a status, a column, a verb
  }
  if (EXTERNAL.has(head)) {
    return null;
  }
  return { kind: 'name', span, name: member ? `${head}.${member}` : head };
}

const MAX_CELL_CHARS = 450;

/** Cells of a Markdown table row; a `|` inside a code span or escaped as `\|` does not split. */
function cellsOf(row: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let inCode = false;
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i];
    if (ch === '`') {
      inCode = !inCode;
    }
    if (ch === '|' && !inCode && inner[i - 1] !== '\\') {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += ch;
    }
  }
  cells.push(cell.trim());
  return cells;
}

/** Every cell of every table outside fenced blocks (header and separator rows left out). */
function tableCells(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return prose
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|[\s|:-]+\|$/.test(l))
    .flatMap(cellsOf);
}

/**
 * The first cell of each row of the table under "## Module map", as the section heading it links
 * to would read: `[`mcp/`](#mcp)` gives `` `mcp/` ``.
 */
function moduleRows(markdown: string): string[] {
  const section = /^## Module map$([\s\S]*?)^## /m.exec(markdown)?.[1] ?? '';
  const rows = section.split('\n').filter((l) => l.startsWith('|'));
  return rows
    .slice(2)
    .map((r) => cellsOf(r)[0])
    .map((c) => c.replace(/^\[(.*)\]\(#[^)]*\)$/, '$1').trim());
}

describe('docs/architecture.md names only what exists', () => {
  const doc = readFileSync(join(ROOT, DOC), 'utf8');
  const files = sourceTexts(join(ROOT, 'src')).map(definitionsOf);
  const srcDirs = new Set(
    readdirSync(join(ROOT, 'src')).filter((d) => statSync(join(ROOT, 'src', d)).isDirectory()),
  );
  const checks = codeSpans(doc)
    .map((span) => checkOf(span, srcDirs))
    .filter((c): c is Check => c !== null);

  it('keeps the headings other docs and code comments cite', () => {
    const headings = [...doc.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(
      expect.arrayContaining([
        'Module map',
        'Payment pipeline',
        'Lock order',
        'Transactions',
        'Start-up registrations',
        'State machines',
        'Money',
        'Errors and outages',
      ]),
    );
  });

  it('lists each module once in the module map, each with its own section', () => {
    const rows = moduleRows(doc);
    expect(rows.length).toBeGreaterThan(30);
    const duplicated = rows.filter((r, i) => rows.indexOf(r) !== i);
    expect(duplicated).toEqual([]);
    const sections = [...doc.matchAll(/^### (.+)$/gm)].map((m) => m[1].trim());
    expect(rows.filter((r) => !sections.includes(r))).toEqual([]);
  });

  it('keeps table cells short (details belong in the sections below a table)', () => {
    const long = tableCells(doc).filter((c) => c.length > MAX_CELL_CHARS);
    expect(long.map((c) => `${c.slice(0, 60)}… (${c.length} characters)`)).toEqual([]);
  });

  it('finds enough to check (the extractor still works)', () => {
    expect(checks.filter((c) => c.kind === 'path').length).toBeGreaterThan(40);
    expect(checks.filter((c) => c.kind === 'name').length).toBeGreaterThan(150);
  });

  it('names only repository paths that exist (from the root, or under src/)', () => {
    const missing = checks
      .filter((c) => c.kind === 'path')
      .filter((c) => !existsSync(join(ROOT, c.path)) && !existsSync(join(ROOT, 'src', c.path)))
      .map((c) => c.span);
    expect([...new Set(missing)]).toEqual([]);
  });

  it('names only classes, methods and functions defined in src/', () => {
    const missing = checks
      .filter((c) => c.kind === 'name')
      .filter((c) => {
        const [owner, member] = c.name.split('.');
        if (!member) {
          return !files.some((f) => f.defined.has(owner));
        }
        return !files.some((f) => f.declared.has(owner) && f.defined.has(member));
      })
      .map((c) => c.span);
    expect([...new Set(missing)]).toEqual([]);
  });
});
