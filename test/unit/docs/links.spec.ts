import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * The README and docs/ link to each other; this keeps those links working. Every relative link
 * (`[text](path)`, `[text](path#anchor)`, `[text](#anchor)`, `[ref]: path`) in README.md,
 * bench/README.md and docs/*.md must name a file that exists, and an anchor must be the slug of a
 * heading in the target page as GitHub makes it. The README stays about one screenful.
 * Pure file-system checks; links inside code (fenced blocks, inline code spans) are not links.
 */

const ROOT = join(__dirname, '..', '..', '..');
const README_MAX_LINES = 200;

function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', 'bench/README.md', ...docs].filter((p) => existsSync(join(ROOT, p)));
}

/** The page's text with fenced blocks and inline code spans blanked out. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchor: lower case, punctuation dropped (not `-` or `_`), spaces to `-`. */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings' slugs, a repeated slug numbered -1, -2, … as on GitHub. */
export function anchorsOf(markdown: string): Set<string> {
  const body = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of body.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = githubSlug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of body.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) {
    anchors.add(m[1]);
  }
  return anchors;
}

/** Relative link targets of a page (external schemes and mail links left out). */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const reference = [...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$/gm)].map(
    (m) => m[1],
  );
  return [...inline, ...reference].filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

describe('links in README.md, bench/README.md and docs/', () => {
  it('the README is about one screenful', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('slugs headings as GitHub does', () => {
    expect(githubSlug('MCP server (`/mcp`)')).toBe('mcp-server-mcp');
    expect(githubSlug('Outages: 503, not 500')).toBe('outages-503-not-500');
    expect(githubSlug('§1 Request pipeline')).toBe('1-request-pipeline');
    expect(githubSlug('payments.approval_threshold')).toBe('paymentsapproval_threshold');
    expect([...anchorsOf('# A\n## Setup\n```\n# not a heading\n```\n## Setup\n')]).toEqual([
      'a',
      'setup',
      'setup-1',
    ]);
    expect(linkTargets('[a](b.md#c) `[x](y.md)` [d](https://e)\n[f]: g.md\n')).toEqual([
      'b.md#c',
      'g.md',
    ]);
  });

  it('finds links to check (the extractor still works)', () => {
    const total = pages().reduce(
      (n, p) => n + linkTargets(readFileSync(join(ROOT, p), 'utf8')).length,
      0,
    );
    expect(total).toBeGreaterThan(40);
  });

  it('every relative link names a file that exists and a heading it has', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const target of linkTargets(text)) {
        const [rawPath, anchor] = target.split('#', 2);
        const path = decodeURIComponent(rawPath);
        const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), path);
        const where = `${page} → ${target}`;
        if (!existsSync(file)) {
          broken.push(`${where}: no such file ${relative(ROOT, file)}`);
          continue;
        }
        if (anchor === undefined || anchor === '') {
          continue;
        }
        if (statSync(file).isDirectory() || !file.endsWith('.md')) {
          broken.push(`${where}: an anchor into something that is not a Markdown page`);
          continue;
        }
        if (!anchorsOf(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))) {
          broken.push(`${where}: no heading with that anchor`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
