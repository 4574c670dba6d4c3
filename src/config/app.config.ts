import { createHash } from 'node:crypto';
import { parseAes256Key } from '../common/crypto/sealed';

/**
 * The only reader of process.env. Everything is validated once at boot; a bad value stops the
 * process with one line naming the variable.
 */
export type Mode = 'sandbox' | 'test' | 'live';

export interface AppConfig {
  mode: Mode;
  port: number;
  baseUrl: string;
  appUrl: string;
  databaseUrl: string;
  databasePoolMax: number;
  redisUrl: string;
  /** Queue key prefix, so several app instances (tests) can share one Redis. */
  queuePrefix: string;
  logLevel: string;
  bodyLimit: string;
  idempotencyTtlHours: number;
  signatureSkewSeconds: number;
  /**
   * PEM (PKCS#8) Ed25519 private key for receipts. Required in live mode; elsewhere, when absent,
   * a key is generated on first boot and stored sealed under signingKeyEncryptionKey.
   */
  signingPrivateKeyPem: string | null;
  /**
   * AES-256-GCM key (32 bytes) sealing stored signing private keys. Dev key outside live mode;
   * null in live mode when unset (live never stores a private key: SIGNING_PRIVATE_KEY is required).
   */
  signingKeyEncryptionKey: Buffer | null;
  approvalThresholdPaise: number;
  approvalTtlSeconds: number;
  dailyCapPaise: number;
  checkoutSessionTtlSeconds: number;
  runMigrations: boolean;
  runWorkers: boolean;
  sessionCookieSecure: boolean;
  /** Sign-in and sign-up attempts per minute per client address and email. */
  rateLimitLoginPerMinute: number;
  /**
   * Requests per second per credential (API key, agent credential, protocol key, person session),
   * shared by every instance through Redis. Defaults: 100 in live, 25 in sandbox and test.
   */
  rateLimitCredentialPerSecond: number;
  /** Requests per second per client address on routes that take no credential. */
  rateLimitPublicPerSecond: number;
  /** Requests one address may send at once on those routes (counted over burst/rate seconds). */
  rateLimitPublicBurst: number;
  /** AES-256-GCM key (32 bytes) sealing webhook signing secrets at rest. Required in live mode. */
  webhookSecretKey: Buffer;
  /** Sweeper/outbox poll interval. */
  webhookDispatchIntervalMs: number;
  /** Per-attempt HTTP timeout for outbound webhooks. */
  webhookTimeoutMs: number;
  /** Delay before retry n (n = 1…length), ±20% jitter; attempts = length + 1. */
  webhookRetryScheduleMs: number[];
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  if (!/^\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
    throw new ConfigError(`${name} must be an integer >= ${min} (got "${raw}")`);
  }
  return Number(raw);
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  if (!['true', 'false', '1', '0'].includes(raw)) {
    throw new ConfigError(`${name} must be true or false (got "${raw}")`);
  }
  return raw === 'true' || raw === '1';
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const raw = str(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (got "${raw}")`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
  }
  return raw.replace(/\/+$/, '');
}

/** 5s, 30s, 2m, 10m, 30m, 1h, 2h, 4h, 8h, 8h: eleven attempts over about 24 hours. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000,
];

function webhookSecretKey(env: Env, mode: Mode): Buffer {
  const raw = env.WEBHOOK_SECRET_KEY;
  if (raw === undefined || raw === '') {
    if (mode === 'live') {
      throw new ConfigError('WEBHOOK_SECRET_KEY is required in live mode (32 bytes, base64 or hex)');
    }
    // Sandbox/test only: a fixed, public development key, so secrets survive restarts.
    return createHash('sha256').update('agent-payments dev webhook secret key (never live)').digest();
  }
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    throw new ConfigError('WEBHOOK_SECRET_KEY must be 32 bytes, base64 or 64 hex characters');
  }
  return key;
}

function signingKeyEncryptionKey(env: Env, mode: Mode): Buffer | null {
  const raw = env.SIGNING_KEY_ENCRYPTION_KEY;
  if (raw === undefined || raw === '') {
    // Sandbox/test only: a fixed, public development key, so a generated key survives restarts.
    return mode === 'live'
      ? null
      : createHash('sha256').update('agent-payments dev signing key encryption key (never live)').digest();
  }
  const key = parseAes256Key(raw);
  if (!key) {
    throw new ConfigError('SIGNING_KEY_ENCRYPTION_KEY must be 32 bytes, base64 or 64 hex characters');
  }
  return key;
}

function msList(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1 || !Number.isSafeInteger(Number(p)))) {
    throw new ConfigError(`${name} must be comma-separated positive integers (got "${raw}")`);
  }
  return parts.map(Number);
}

/** RATE_LIMIT_PUBLIC_PER_MIN (per minute, discovery only) became a per-second limit on every public route. */
function rateLimitPublicPerSecond(env: Env): number {
  if (env.RATE_LIMIT_PUBLIC_PER_MIN !== undefined && env.RATE_LIMIT_PUBLIC_PER_MIN !== '') {
    throw new ConfigError('RATE_LIMIT_PUBLIC_PER_MIN was replaced by RATE_LIMIT_PUBLIC_PER_S and RATE_LIMIT_PUBLIC_BURST');
  }
  return int(env, 'RATE_LIMIT_PUBLIC_PER_S', 10, 1);
}

export function loadConfig(env: Env = process.env): AppConfig {
  const mode = str(env, 'MODE', 'sandbox');
  if (mode !== 'sandbox' && mode !== 'test' && mode !== 'live') {
    throw new ConfigError(`MODE must be sandbox, test or live (got "${mode}")`);
  }
  const port = int(env, 'PORT', 3000);
  const baseUrl = url(env, 'BASE_URL', `http://localhost:${port}`, ['http:', 'https:']);
  if (mode === 'live' && !baseUrl.startsWith('https:')) {
    throw new ConfigError('BASE_URL must be https in live mode');
  }
  const pem = env.SIGNING_PRIVATE_KEY;
  if (mode === 'live' && !pem) {
    throw new ConfigError(
      'SIGNING_PRIVATE_KEY is required in live mode (Ed25519 PKCS#8 PEM); generated keys are for sandbox and test only',
    );
  }
  return {
    mode,
    port,
    baseUrl,
    appUrl: url(env, 'APP_URL', `${baseUrl}/app`, ['http:', 'https:']),
    databaseUrl: url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/payments', [
      'postgres:',
      'postgresql:',
    ]),
    databasePoolMax: int(env, 'DATABASE_POOL_MAX', 20, 2),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    queuePrefix: str(env, 'QUEUE_PREFIX', 'svc'),
    logLevel: str(env, 'LOG_LEVEL', 'info'),
    bodyLimit: str(env, 'BODY_LIMIT', '256kb'),
    idempotencyTtlHours: int(env, 'IDEMPOTENCY_TTL_HOURS', 24, 24),
    signatureSkewSeconds: int(env, 'SIGNATURE_CLOCK_SKEW_S', 300, 1),
    signingPrivateKeyPem: pem && pem.length > 0 ? pem.replace(/\\n/g, '\n') : null,
    signingKeyEncryptionKey: signingKeyEncryptionKey(env, mode),
    approvalThresholdPaise: int(env, 'APPROVAL_THRESHOLD_PAISE', 200_000, 0),
    approvalTtlSeconds: int(env, 'APPROVAL_TTL_S', 24 * 3600, 1),
    dailyCapPaise: int(env, 'DAILY_CAP_PAISE', 5_000_000, 1),
    checkoutSessionTtlSeconds: int(env, 'CHECKOUT_SESSION_TTL_S', 15 * 60, 1),
    runMigrations: bool(env, 'RUN_MIGRATIONS', true),
    runWorkers: bool(env, 'RUN_WORKERS', true),
    sessionCookieSecure: bool(env, 'SESSION_COOKIE_SECURE', mode === 'live'),
    rateLimitLoginPerMinute: int(env, 'RATE_LIMIT_LOGIN_PER_MIN', 10, 1),
    rateLimitCredentialPerSecond: int(env, 'RATE_LIMIT_CREDENTIAL_PER_S', mode === 'live' ? 100 : 25, 1),
    rateLimitPublicPerSecond: rateLimitPublicPerSecond(env),
    rateLimitPublicBurst: int(env, 'RATE_LIMIT_PUBLIC_BURST', 20, 1),
    webhookSecretKey: webhookSecretKey(env, mode),
    webhookDispatchIntervalMs: int(env, 'WEBHOOK_DISPATCH_INTERVAL_MS', 1000, 10),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100),
    webhookRetryScheduleMs: msList(env, 'WEBHOOK_RETRY_SCHEDULE_MS', DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS),
  };
}

/** Injection token for the validated AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');
