import { execFileSync } from 'node:child_process';

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
