import type { AppConfig } from '../../src/config/app.config';
import { announce, NEST_BOOT_CONTEXTS, startupBanner } from '../../src/startup-banner';
import { startAppCapturingLogs } from '../support/app';

interface Line {
  level: number;
  msg?: string;
  context?: string;
  banner?: Record<string, string>;
}

/** The app as main.ts starts it (its logger, JSON lines), at LOG_LEVEL `level`, then its banner. */
async function startLines(level: string, env: Record<string, string> = {}): Promise<Line[]> {
  const logs: string[] = [];
  const t = await startAppCapturingLogs(logs, { LOG_LEVEL: level, LOG_PRETTY: 'false', ...env });
  try {
    announce(t.app, t.config);
  } finally {
    await t.close();
  }
  return logs
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}

describe('start-up log', () => {
  // One boot, at debug: every line is there with its level, so "nothing at info" is not vacuous.
  // (A second boot in the same process would find Nest's static logger of the first.)
  let lines: Line[];
  beforeAll(async () => {
    lines = await startLines('debug', { METRICS_TOKEN: 'a-metrics-token-of-enough-length-123' });
  }, 60_000);

  it("puts Nest's route mapping and boot chatter at debug: nothing of it at info", () => {
    const mapped = lines.filter((l) => l.msg?.includes('Mapped {'));
    expect(mapped.length).toBeGreaterThan(50);
    const boot = lines.filter((l) => NEST_BOOT_CONTEXTS.has(l.context ?? ''));
    expect(boot.length).toBeGreaterThanOrEqual(mapped.length);
    expect(new Set(boot.map((l) => l.level))).toEqual(new Set([20]));
  });

  it('logs one banner at info with the URLs, mode, rail and what to do next', () => {
    const banners = lines.filter((l) => l.context === 'Startup');
    expect(banners).toHaveLength(1);
    const [b] = banners;
    expect(b.level).toBe(30);
    const base = b.banner!.api;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(b.banner).toEqual({
      mode: 'test',
      rail: 'sandbox',
      api: base,
      app: `${base}/app`,
      docs: `${base}/docs`,
      metrics: `${base}/metrics (Bearer METRICS_TOKEN)`,
    });
    for (const part of [
      `listening on ${base}`,
      `App      ${base}/app`,
      `Docs     ${base}/docs`,
      `Metrics  ${base}/metrics (Bearer METRICS_TOKEN)`,
      '(test, rail sandbox)',
      'npm run sandbox -- --env-file .env.sandbox',
      'source .env.sandbox',
      'docs/try-it.md',
    ]) {
      expect(b.msg).toContain(part);
    }
    expect(JSON.stringify(lines)).not.toContain('a-metrics-token-of-enough-length-123');
  });
});

describe(startupBanner.name, () => {
  const config = {
    baseUrl: 'http://localhost:3000',
    appUrl: 'http://localhost:3000/app',
    rail: 'gateway',
  };

  it('says /metrics is open in sandbox without a token, and off in live mode', () => {
    const sandbox = startupBanner({ ...config, mode: 'sandbox', metricsToken: null } as AppConfig);
    expect(sandbox.fields.metrics).toBe('http://localhost:3000/metrics (open)');
    expect(sandbox.text).toContain('(sandbox, rail gateway)');
    const live = startupBanner({ ...config, mode: 'live', metricsToken: null } as AppConfig);
    expect(live.fields.metrics).toMatch(/^off/);
    expect(live.text).not.toContain('npm run sandbox');
  });
});
