import { inspect } from 'node:util';

import { ConfigError, loadConfig } from '../../../src/config/app.config';

/** The gateway area of the configuration (docs/configuration.md, docs/gateway.md "Going live on the gateway"). */
describe('gateway configuration', () => {
  const gateway = {
    RAIL: 'gateway',
    GATEWAY_API_URL: 'http://127.0.0.1:4010/',
    GATEWAY_KEY_ID: 'rzp_test_abc123',
    GATEWAY_KEY_SECRET: 'key-secret-value-1',
    GATEWAY_WEBHOOK_SECRET: 'webhook-secret-value-2',
  };

  it('defaults to the sandbox rail with no gateway', () => {
    const c = loadConfig({});
    expect(c.rail).toBe('sandbox');
    expect(c.gateway).toBeNull();
    expect(c.railReconcileAfterMs).toBe(60_000);
  });

  it('reads the gateway area with RAIL=gateway; the checkout origin defaults to the API URL', () => {
    const c = loadConfig({ ...gateway, MODE: 'test' });
    expect(c.rail).toBe('gateway');
    expect(c.gateway).toMatchObject({
      apiUrl: 'http://127.0.0.1:4010',
      checkoutUrl: 'http://127.0.0.1:4010',
      keyId: 'rzp_test_abc123',
      timeoutMs: 10_000,
    });
    expect(c.gateway?.keySecret.reveal()).toBe('key-secret-value-1');
    expect(c.gateway?.webhookSecret.reveal()).toBe('webhook-secret-value-2');
    expect(
      loadConfig({ ...gateway, GATEWAY_CHECKOUT_URL: 'http://127.0.0.1:4011' }).gateway
        ?.checkoutUrl,
    ).toBe('http://127.0.0.1:4011');
  });

  it.each(['GATEWAY_API_URL', 'GATEWAY_KEY_ID', 'GATEWAY_KEY_SECRET', 'GATEWAY_WEBHOOK_SECRET'])(
    'refuses to boot RAIL=gateway without %s, naming it',
    (name) => {
      const env: Record<string, string> = { ...gateway };
      delete env[name];
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(`${name} is required when RAIL=gateway`);
    },
  );

  it('refuses a bad value with one line, never printing a secret', () => {
    expect(() => loadConfig({ RAIL: 'bank' })).toThrow(/RAIL must be sandbox or gateway/);
    expect(() => loadConfig({ ...gateway, GATEWAY_API_URL: 'ftp://x' })).toThrow(
      /GATEWAY_API_URL must use http: or https:/,
    );
    let message = '';
    try {
      loadConfig({ ...gateway, GATEWAY_KEY_SECRET: 'short' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe('GATEWAY_KEY_SECRET must be at least 8 characters');
  });

  it('wants https in live mode and a reconcile delay longer than a gateway call', () => {
    const live = {
      ...gateway,
      MODE: 'live',
      BASE_URL: 'https://pay.example.in',
      SIGNING_PRIVATE_KEY: 'x',
      WEBHOOK_SECRET_KEY: 'a'.repeat(64),
    };
    expect(() => loadConfig(live)).toThrow(/must be https in live mode/);
    expect(
      loadConfig({ ...live, GATEWAY_API_URL: 'https://api.gateway.example' }).gateway?.apiUrl,
    ).toBe('https://api.gateway.example');
    expect(() =>
      loadConfig({ ...gateway, GATEWAY_TIMEOUT_MS: '5000', RAIL_RECONCILE_AFTER_MS: '5000' }),
    ).toThrow(/RAIL_RECONCILE_AFTER_MS must be greater than GATEWAY_TIMEOUT_MS/);
  });

  it('prints the secrets as [redacted] however the configuration is logged', () => {
    const c = loadConfig(gateway);
    for (const text of [
      JSON.stringify(c),
      inspect(c, { depth: 5 }),
      String(c.gateway?.keySecret),
    ]) {
      expect(text).not.toContain('key-secret-value-1');
      expect(text).not.toContain('webhook-secret-value-2');
    }
    expect(JSON.stringify(c.gateway)).toContain('"keySecret":"[redacted]"');
  });
});
