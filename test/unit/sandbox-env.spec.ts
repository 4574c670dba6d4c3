import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

import {
  createExclusive,
  refuseUnsafeEnvTarget,
  temporaryNameFor,
  writeEnvFileSafely,
} from '../../src/cli/sandbox-env-file';
import { parseEnvFile, shellQuote } from '../../src/sandbox/sandbox-env';

describe('sandbox env file', () => {
  const values = ["a'b", 'x y $HOME `ls` "q" \\n', "''", '', "it's'' fine\\", 'sk_test_abc'];

  it.each(values)('quotes %j so the shell and parseEnvFile read it back unchanged', (v) => {
    const line = `export X=${shellQuote(v)}  # a note\n`;
    expect(parseEnvFile(line).X).toBe(v);
    const out = execFileSync('bash', ['-c', `${line}printf %s "$X"`], { encoding: 'utf8' });
    expect(out).toBe(v);
  });

  it('skips comments and other lines', () => {
    expect(parseEnvFile("# c\n\necho hi\nexport A='1'\nB=2\n")).toEqual({ A: '1', B: '2' });
  });
});

describe('sandbox env file on disk (src/cli/sandbox-env-file.ts)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-env-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const modeOf = (path: string) => statSync(path).mode & 0o777;

  it('writes the file with mode 0600, also over an existing 0644 file, leaving no temporary file', () => {
    const target = join(dir, '.env.sandbox');
    writeEnvFileSafely(target, "export API_KEY='sk_test_1'\n");
    expect(readFileSync(target, 'utf8')).toBe("export API_KEY='sk_test_1'\n");
    expect(modeOf(target)).toBe(0o600);
    chmodSync(target, 0o644);
    writeEnvFileSafely(target, "export API_KEY='sk_test_2'\n");
    expect(readFileSync(target, 'utf8')).toBe("export API_KEY='sk_test_2'\n");
    expect(modeOf(target)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['.env.sandbox']);
  });

  it('does not write through a symlink planted at the old predictable temporary name', () => {
    const target = join(dir, '.env.sandbox');
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'untouched\n');
    // The name the writer used to use: `${path}.${pid}.tmp`.
    const planted = `${target}.${process.pid}.tmp`;
    symlinkSync(victim, planted);
    writeEnvFileSafely(target, "export API_KEY='sk_test_3'\n");
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe("export API_KEY='sk_test_3'\n");
    expect(lstatSync(target).isSymbolicLink()).toBe(false);
  });

  it('refuses a symlink at the target, before and at writing, and writes nothing', () => {
    const target = join(dir, '.env.sandbox');
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'untouched\n');
    symlinkSync(victim, target);
    expect(() => refuseUnsafeEnvTarget(target)).toThrow(/symbolic link/);
    expect(() => writeEnvFileSafely(target, "export API_KEY='sk_test_4'\n")).toThrow(
      /symbolic link/,
    );
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(lstatSync(target).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['.env.sandbox', 'victim']);
    // A dangling link is refused too (it would create the file it names).
    const dangling = join(dir, 'dangling');
    symlinkSync(join(dir, 'nowhere'), dangling);
    expect(() => writeEnvFileSafely(dangling, 'x')).toThrow(/symbolic link/);
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it('creates the temporary file beside the target under a random name, exclusively, 0600', () => {
    const target = join(dir, 'env');
    const names = [temporaryNameFor(target), temporaryNameFor(target)];
    for (const name of names) {
      expect(dirname(name)).toBe(dir);
      expect(basename(name)).toMatch(/^\.env\.[0-9a-f]{32}\.tmp$/);
    }
    expect(names[0]).not.toBe(names[1]);
    // Exclusive: a file or a link already at the name is never opened.
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'untouched\n');
    symlinkSync(victim, names[0]);
    writeFileSync(names[1], 'planted\n');
    for (const name of names) {
      expect(() => createExclusive(name)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    }
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    const fresh = temporaryNameFor(target);
    closeSync(createExclusive(fresh));
    expect(modeOf(fresh)).toBe(0o600);
  });
});
