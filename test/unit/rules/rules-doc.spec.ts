import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { RULES } from '../../../src/rules/rule-catalog';
import { renderRulesDoc } from '../../../src/rules/rules-doc';

const ROOT = join(__dirname, '..', '..', '..');

describe('docs/rules.md', () => {
  it('is what the generator writes from the registry (run `npm run rules:doc` when this fails)', () => {
    const committed = readFileSync(join(ROOT, 'docs', 'rules.md'), 'utf8');
    expect(committed).toBe(renderRulesDoc(RULES));
  });

  it('lists every rule with its source, certainty, configurability and pinning test', () => {
    const page = renderRulesDoc(RULES);
    for (const r of RULES.all()) {
      expect(page).toContain(`## ${r.id}`);
      expect(page).toContain(r.pinnedBy.title);
      for (const v of r.versions) {
        expect(page).toContain(v.source.replace(/\|/g, '\\|'));
      }
      if (r.configurable) {
        expect(page).toContain(`\`${r.configurable.env}\``);
      }
    }
  });
});

describe('rule pinning', () => {
  it.each(RULES.all().map((r) => [r.id, r.pinnedBy.file, r.pinnedBy.title] as const))(
    '%s is pinned by a test that exists',
    (_id, file, title) => {
      const path = join(ROOT, file);
      expect(existsSync(path)).toBe(true);
      const source = readFileSync(path, 'utf8');
      // The test's title as written in an it(…) call, single-quoted or on its own line.
      expect(source).toMatch(new RegExp(`it\\(\\s*'${escape(title)}'`));
    },
  );
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/'/g, "\\\\'");
}
