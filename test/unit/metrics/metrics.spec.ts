import type { Request } from 'express';

import { loadConfig } from '../../../src/config/app.config';
import { codeLabel } from '../../../src/metrics/business-metrics';
import { METRIC_PREFIX, METRICS } from '../../../src/metrics/metric-names';
import { bearerMatches, metricsAccess } from '../../../src/metrics/metrics-access';
import { MetricsRegistry } from '../../../src/metrics/metrics-registry';
import { methodLabel, routeLabel, UNMATCHED_ROUTE } from '../../../src/metrics/route-label';

function req(p: { url: string; route?: string; baseUrl?: string }): Request {
  return {
    originalUrl: p.url,
    url: p.url,
    baseUrl: p.baseUrl ?? '',
    route: p.route === undefined ? undefined : { path: p.route },
  } as unknown as Request;
}

describe('metric names', () => {
  it('are prefixed, unique, and counters (and only counters) end in _total', () => {
    const all = Object.values(METRICS);
    const names = all.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    for (const m of all) {
      expect(m.name.startsWith(METRIC_PREFIX)).toBe(true);
      expect(m.name).toMatch(/^[a-z_]+$/);
      expect(m.help.length).toBeGreaterThan(10);
    }
    const registry = new MetricsRegistry();
    const types = Object.fromEntries(
      registry.registry
        .getMetricsAsArray()
        .map((m) => [m.name, (m as unknown as { type: string }).type]),
    );
    for (const m of all) {
      expect({ name: m.name, counter: types[m.name] === 'counter' }).toEqual({
        name: m.name,
        counter: m.name.endsWith('_total'),
      });
    }
  });

  it('label no amount, id or free text: only bounded label names', () => {
    const allowed = new Set([
      'route',
      'method',
      'status',
      'outcome',
      'reason',
      'state',
      'event_type',
      'result',
      'kind',
      'queue',
      'source',
    ]);
    for (const m of Object.values(METRICS)) {
      for (const label of m.labelNames) {
        expect(allowed.has(label)).toBe(true);
      }
    }
  });
});

describe('routeLabel', () => {
  it.each([
    [{ url: '/v1/pay/intents/pi_123?x=1', route: '/v1/pay/intents/:id' }, '/v1/pay/intents/:id'],
    [
      {
        url: '/acp/checkout_sessions/cs_1/complete',
        route: '/acp/checkout_sessions/:checkout_session_id/complete',
      },
      '/acp/checkout_sessions/:checkout_session_id/complete',
    ],
    [{ url: '/app/whatever/else', route: '/app/*path' }, '/app/*path'],
    [{ url: '/no/such/path/123', route: '/{*path}' }, UNMATCHED_ROUTE],
    [{ url: '/no/such/path/123' }, UNMATCHED_ROUTE],
    [
      { url: '/app/ops/queues/api/queues?activeQueue=x', route: '/api/queues' },
      '/app/ops/queues/*',
    ],
    [{ url: '/app/ops/queues' }, '/app/ops/queues/*'],
    [{ url: '/app/opsx' }, UNMATCHED_ROUTE],
    [{ url: '/app/assets/app.css' }, '/app/assets/*'],
    [{ url: '/docs/swagger-ui.css' }, '/docs/*'],
    [{ url: '/docs/openapi.json', route: '/docs/openapi.json' }, '/docs/openapi.json'],
  ])('%j → %s', (r, label) => {
    expect(routeLabel(req(r))).toBe(label);
  });

  it('bounds methods', () => {
    expect(methodLabel('GET')).toBe('GET');
    expect(methodLabel('PROPFIND')).toBe('OTHER');
  });

  it('bounds decline codes', () => {
    expect(codeLabel('mandate_cap_exceeded')).toBe('mandate_cap_exceeded');
    expect(codeLabel(null)).toBe('other');
    expect(codeLabel('Card declined: 4111 1111')).toBe('other');
    expect(codeLabel('x'.repeat(100))).toBe('other');
  });
});

describe('metrics access', () => {
  const live = {
    MODE: 'live',
    BASE_URL: 'https://pay.example.in',
    SIGNING_PRIVATE_KEY: 'x',
    WEBHOOK_SECRET_KEY: 'a'.repeat(64),
  };
  const token = 'a1'.repeat(20);

  it('needs the token when one is set; is open in sandbox and test without one; is off in live without one', () => {
    expect(metricsAccess(loadConfig({ METRICS_TOKEN: token }))).toBe('token');
    expect(metricsAccess(loadConfig({ ...live, METRICS_TOKEN: token }))).toBe('token');
    expect(metricsAccess(loadConfig({}))).toBe('open');
    expect(metricsAccess(loadConfig({ MODE: 'test' }))).toBe('open');
    expect(metricsAccess(loadConfig(live))).toBe('off');
  });

  it('compares the bearer token exactly', () => {
    expect(bearerMatches(`Bearer ${token}`, token)).toBe(true);
    expect(bearerMatches(`bearer ${token}`, token)).toBe(true);
    for (const header of [
      undefined,
      '',
      token,
      `Bearer ${token}x`,
      `Bearer ${token.slice(1)}`,
      `Bearer  ${token} extra`,
      `Basic ${token}`,
      'Bearer ',
    ]) {
      expect(bearerMatches(header, token)).toBe(false);
    }
  });

  it('refuses a short METRICS_TOKEN at boot without echoing it', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short-secret-value' })).toThrow(
      /^METRICS_TOKEN must be 32 to 512 visible ASCII characters/,
    );
    expect(() => loadConfig({ METRICS_TOKEN: 'short-secret-value' })).not.toThrow(
      /short-secret-value/,
    );
    expect(() => loadConfig({ METRICS_TOKEN: `${'x'.repeat(40)} y` })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({}).metricsToken).toBeNull();
  });
});
