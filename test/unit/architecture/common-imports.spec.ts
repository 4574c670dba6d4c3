import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

import { tsFilesUnder } from '../../support/source-files';

const SRC = join(__dirname, '..', '..', '..', 'src');
const COMMON = join(SRC, 'common');

/**
 * The shared plumbing sits below every feature (docs/architecture.md, `common/`): src/common may
 * read itself and the floors below it (database/, config/, and rules/, the registry config reads)
 * and never a feature module. Features reach common, not the other way round; where common needs a
 * feature's data it declares a port (e.g. CredentialLookup) that the feature implements.
 */
const ALLOWED = ['common', 'database', 'config', 'rules'];

/** Relative module specifiers of `import … from`, `export … from`, `import '…'` and `import()`. */
function relativeSpecifiers(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']*)'/g)].map((m) => m[1]);
}

describe('src/common imports no feature module', () => {
  it('reaches only common/, database/, config/ and rules/', () => {
    const outside: string[] = [];
    for (const file of tsFilesUnder(COMMON)) {
      for (const specifier of relativeSpecifiers(readFileSync(file, 'utf8'))) {
        const floor = relative(SRC, resolve(dirname(file), specifier)).split(sep)[0];
        if (!ALLOWED.includes(floor)) {
          outside.push(`${relative(SRC, file)}: ${specifier}`);
        }
      }
    }
    expect(outside).toEqual([]);
  });
});
