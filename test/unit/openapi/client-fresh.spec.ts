import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..', '..');
const COMMITTED = 'clients/typescript/schema.d.ts';

/**
 * clients/typescript/schema.d.ts is what `npm run client:generate` makes of openapi/openapi.json
 * (openapi-typescript): the script is run here as package.json has it, into a scratch file.
 */
describe('clients/typescript/schema.d.ts', () => {
  it('matches the types generated from openapi/openapi.json (run `npm run client:generate` when this fails)', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const [bin, ...args] = pkg.scripts['client:generate'].split(/\s+/);
    expect(bin).toBe('openapi-typescript');
    const out = args.indexOf('-o');
    expect(args[out + 1]).toBe(COMMITTED);
    const dir = mkdtempSync(join(tmpdir(), 'client-fresh-'));
    try {
      args[out + 1] = join(dir, 'schema.d.ts');
      await promisify(execFile)(join(ROOT, 'node_modules', '.bin', bin), args, {
        cwd: ROOT,
        timeout: 60_000,
      });
      const fresh = readFileSync(args[out + 1], 'utf8');
      const committed = readFileSync(join(ROOT, COMMITTED), 'utf8');
      if (committed !== fresh) {
        throw new Error(
          `${COMMITTED} is stale: run \`npm run client:generate\` (after \`npm run openapi\`)`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
