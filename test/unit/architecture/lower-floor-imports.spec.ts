import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = join(__dirname, '..', '..', '..', 'src');

/**
 * The rails and the outbox sit below the payment pipeline and every module that raises an event
 * (docs/architecture.md "Module map"): they read the shared plumbing and, for the gateway's
 * mandate tokens, the mandates owner's SQL parts and its registration marker (mandate-registration-state,
 * which itself reads only those parts); never the pipeline or a feature above it.
 */
const ALLOWED: Record<string, string[]> = {
  rails: [
    'common/',
    'config/',
    'database/',
    'rails/',
    'mandates/mandate.repository',
    'mandates/mandate-registration-state',
  ],
  outbox: ['common/', 'config/', 'database/', 'metrics/business-metrics', 'outbox/'],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe.each(Object.keys(ALLOWED))('src/%s imports only what lies below it', (floor) => {
  it('reaches only its allowed folders and files', () => {
    const outside: string[] = [];
    for (const file of files(join(SRC, floor))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
        const target = relative(SRC, resolve(dirname(file), m[1]))
          .split('\\')
          .join('/');
        if (!ALLOWED[floor].some((ok) => target === ok || target.startsWith(ok))) {
          outside.push(`${relative(SRC, file)}: ${target}`);
        }
      }
    }
    expect(outside).toEqual([]);
  });
});
