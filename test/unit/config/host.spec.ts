import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ConfigError, loadConfig } from '../../../src/config/app.config';

const ROOT = join(__dirname, '..', '..', '..');

/** HOST: loopback by default, 0.0.0.0 in the image (docs/configuration.md). */
describe('HOST', () => {
  it('binds 127.0.0.1 unless told otherwise', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '::' }).host).toBe('::');
  });

  it('refuses what is not an address or a host name, naming the variable', () => {
    expect(() => loadConfig({ HOST: 'a b' })).toThrow(ConfigError);
    expect(() => loadConfig({ HOST: 'a b' })).toThrow(/HOST/);
  });

  it('is what main.ts listens on, and what the image and compose set to 0.0.0.0', () => {
    expect(readFileSync(join(ROOT, 'src', 'main.ts'), 'utf8')).toContain(
      'app.listen(config.port, config.host)',
    );
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^ENV HOST=0\.0\.0\.0$/m);
    expect(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')).toMatch(
      /^\s+HOST: 0\.0\.0\.0$/m,
    );
  });
});
