import {
  ConfigError,
  DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
  loadConfig,
} from '../../../src/config/app.config';
import { nextRetryDelayMs } from '../../../src/webhooks/retry-schedule';
import { addressRefusal, checkWebhookUrl } from '../../../src/webhooks/url-policy';
import { issueWebhookSecret, WebhookSecrets } from '../../../src/webhooks/webhook-secrets';

describe('retry schedule', () => {
  it('defaults to eleven attempts over about 24 hours', () => {
    const total = DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect(DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS).toHaveLength(10);
    expect(total / 3_600_000).toBeGreaterThan(23.5);
    expect(total / 3_600_000).toBeLessThan(24.5);
  });

  it('jitters each delay by at most ±20% and ends after the last step', () => {
    const schedule = [1000, 2000, 3000];
    expect(nextRetryDelayMs(schedule, 1, () => 0)).toBe(800);
    expect(nextRetryDelayMs(schedule, 1, () => 1)).toBe(1200);
    expect(nextRetryDelayMs(schedule, 3, () => 0.5)).toBe(3000);
    expect(nextRetryDelayMs(schedule, 4)).toBeNull();
    for (let i = 0; i < 200; i++) {
      const d = nextRetryDelayMs(schedule, 2)!;
      expect(d).toBeGreaterThanOrEqual(1600);
      expect(d).toBeLessThanOrEqual(2400);
    }
  });
});

describe('webhook config', () => {
  it('parses WEBHOOK_RETRY_SCHEDULE_MS and refuses nonsense', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '50, 100,150' }).webhookRetryScheduleMs).toEqual(
      [50, 100, 150],
    );
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '50,x' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '0' })).toThrow(ConfigError);
  });

  it('requires a 32-byte WEBHOOK_SECRET_KEY in live mode only', () => {
    const live = { MODE: 'live', BASE_URL: 'https://pay.example', SIGNING_PRIVATE_KEY: 'pem' };
    expect(() => loadConfig(live)).toThrow(/WEBHOOK_SECRET_KEY is required/);
    expect(() =>
      loadConfig({ ...live, WEBHOOK_SECRET_KEY: Buffer.alloc(16, 1).toString('base64') }),
    ).toThrow(/32 bytes/);
    expect(loadConfig({ ...live, WEBHOOK_SECRET_KEY: 'ab'.repeat(32) }).webhookSecretKey).toEqual(
      Buffer.alloc(32, 0xab),
    );
    expect(
      loadConfig({ ...live, WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') })
        .webhookSecretKey,
    ).toEqual(Buffer.alloc(32, 7));
    expect(loadConfig({ MODE: 'sandbox' }).webhookSecretKey).toHaveLength(32);
  });
});

describe('webhook secrets', () => {
  const box = new WebhookSecrets(loadConfig({}));

  it('seals with AES-256-GCM bound to the endpoint id', () => {
    const secret = issueWebhookSecret();
    const sealed = box.seal(secret, 'whe_a');
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, 'whe_a')).toBe(secret);
    expect(() => box.open(sealed, 'whe_b')).toThrow();
    const [v, iv, tag, ct] = sealed.split('.');
    const flipped = [v, iv, tag, `${ct[0] === 'A' ? 'B' : 'A'}${ct.slice(1)}`].join('.');
    expect(() => box.open(flipped, 'whe_a')).toThrow();
    expect(box.seal(secret, 'whe_a')).not.toBe(sealed); // fresh IV each time
  });
});

describe('webhook url policy', () => {
  it.each([
    ['127.0.0.1', 'private'],
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'always'],
    ['0.0.0.0', 'always'],
    ['::1', 'private'],
    ['::ffff:127.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'always'],
    ['fd00::1', 'private'],
    ['fe80::1', 'always'],
    ['fd00:ec2::254', 'always'],
    ['93.184.215.14', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(addressRefusal(address, 'live') !== null).toBe(kind !== 'public');
    expect(addressRefusal(address, 'sandbox') !== null).toBe(kind === 'always');
  });

  it('refuses a host when any resolved address is refused, and unresolvable hosts', async () => {
    const resolver = (addrs: string[]) => async () => addrs;
    expect(
      await checkWebhookUrl('https://a.example/x', 'live', resolver(['93.184.215.14'])),
    ).toBeInstanceOf(URL);
    expect(
      await checkWebhookUrl('https://a.example/x', 'live', resolver(['93.184.215.14', '10.0.0.1'])),
    ).toEqual({ reason: expect.stringMatching(/10\.0\.0\.1/) });
    expect(
      await checkWebhookUrl('https://a.example/x', 'live', async () => {
        throw new Error('ENOTFOUND');
      }),
    ).toEqual({ reason: expect.stringMatching(/does not resolve/) });
    expect(
      await checkWebhookUrl('http://a.example/x', 'live', resolver(['93.184.215.14'])),
    ).toEqual({ reason: 'url must use https in live mode' });
    expect(
      await checkWebhookUrl('http://localhost:3000/x', 'sandbox', resolver(['127.0.0.1'])),
    ).toBeInstanceOf(URL);
  });
});
