import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { randomToken } from '../../src/common/ids';
import { parseEnvFile } from '../../src/sandbox/sandbox-env';
import type { TestApp } from './app';
import { TEST_REDIS_URL } from './test-db';

const ROOT = join(__dirname, '..', '..');

/**
 * `npm run sandbox -- --env-file FILE …` as a person runs it (docs/operations.md), against the
 * app `t` (its database, Redis, base URL); returns the variables the file holds.
 */
export async function runSandboxCli(
  t: TestApp,
  file: string,
  args: string[] = [],
): Promise<Record<string, string>> {
  await promisify(execFile)('npm', ['run', '-s', 'sandbox', '--', '--env-file', file, ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: t.config.databaseUrl,
      REDIS_URL: TEST_REDIS_URL,
      BASE_URL: t.url,
      LOG_LEVEL: 'silent',
      QUEUE_PREFIX: `t${randomToken(8)}`,
      RUN_WORKERS: 'false',
    },
    timeout: 60_000,
  });
  return parseEnvFile(readFileSync(file, 'utf8'));
}
