import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..', '..');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string }[];
}

/** `npm run openapi:lint`, as a test: the committed contract passes redocly.yaml with nothing to report. */
describe('openapi/openapi.json lint (Redocly, redocly.yaml)', () => {
  it('has no errors and no warnings', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js'),
        'lint',
        'openapi/openapi.json',
        '--format=json',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    const report = JSON.parse(stdout) as LintReport;
    expect(report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);
});
