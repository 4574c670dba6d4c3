import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every `.ts` file under `dir`, depth first, in directory order: the tests that read our sources. */
export function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      return tsFilesUnder(path);
    }
    return name.endsWith('.ts') ? [path] : [];
  });
}
