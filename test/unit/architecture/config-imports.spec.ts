import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CONFIG = join(__dirname, '..', '..', '..', 'src', 'config');

/**
 * Configuration sits below every feature (docs/architecture.md): src/config may read the shared
 * plumbing (common/, database/) and the rules registry (rules/), never a feature module.
 */
describe('src/config imports no feature module', () => {
  it('reaches only common/, database/ and rules/', () => {
    const outside: string[] = [];
    for (const file of readdirSync(CONFIG).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(CONFIG, file), 'utf8');
      for (const m of text.matchAll(/from '\.\.\/([a-z-]+)\//g)) {
        if (!['common', 'database', 'rules'].includes(m[1])) {
          outside.push(`${file}: ../${m[1]}/`);
        }
      }
    }
    expect(outside).toEqual([]);
  });
});
