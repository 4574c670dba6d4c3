import { createHash } from 'node:crypto';

import { z } from 'zod';

import { parseAes256Key } from '../common/crypto/sealed';

/**
 * The only reader of process.env (a lint rule keeps it so). Each area of the service has one zod
 * schema of the variables it reads; everything is validated once at boot, and a bad value stops
 * the process with one line naming the variable. The README's "Configuration" table lists them.
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
  /**
   * One LISTEN connection per instance (README "Running more than one instance"): wakes the outbox
   * dispatcher on commit and carries credential revocations. false: poll only, no credential cache.
   */
  pgListen: boolean;
  /** Where that connection goes; null: databaseUrl. Behind PgBouncer (transaction mode), Postgres itself. */
  databaseListenUrl: string | null;
  /** How long a resolved credential is reused in process; 0: never (every request reads Postgres). */
  credentialCacheTtlMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** 5s, 30s, 2m, 10m, 30m, 1h, 2h, 4h, 8h, 8h: eleven attempts over about 24 hours. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000,
  28_800_000,
];

// Variable kinds. Each issue message completes "<VARIABLE> …"; formatIssue adds the value given.

const integer = (min: number, error = `must be an integer >= ${min}`) =>
  z
    .string()
    .regex(/^\d+$/, { error })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error })
        .max(Number.MAX_SAFE_INTEGER, { error: 'is too large (at most 2^53 - 1)' }),
    );

const flag = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');

const url = (protocols: string[]) =>
  z
    .string()
    .refine((v) => URL.canParse(v), { error: 'must be a URL', abort: true })
    .refine((v) => protocols.includes(new URL(v).protocol), {
      error: `must use ${protocols.join(' or ')}`,
    })
    .transform((v) => v.replace(/\/+$/, ''));

const aes256Key = z
  .string()
  .refine((v) => parseAes256Key(v) !== null, {
    error: 'must be 32 bytes, base64 or 64 hex characters',
    abort: true,
  })
  .transform((v) => parseAes256Key(v) as Buffer);

const msList = z
  .string()
  .transform((v) => v.split(',').map((p) => p.trim()))
  .pipe(z.array(integer(1, 'must be comma-separated positive integers')));

const removed = (instead: string) => z.never({ error: `was replaced by ${instead}` }).optional();

// One schema per area.

const serverEnv = z.object({
  MODE: z
    .enum(['sandbox', 'test', 'live'], { error: 'must be sandbox, test or live' })
    .default('sandbox'),
  PORT: integer(0).default(3000),
  BASE_URL: url(['http:', 'https:']).optional(),
  APP_URL: url(['http:', 'https:']).optional(),
  LOG_LEVEL: z.string().default('info'),
  BODY_LIMIT: z.string().default('256kb'),
  SESSION_COOKIE_SECURE: flag.optional(),
  RUN_MIGRATIONS: flag.default(true),
  RUN_WORKERS: flag.default(true),
});

const storageEnv = z.object({
  DATABASE_URL: url(['postgres:', 'postgresql:']).default(
    'postgres://postgres@127.0.0.1:5432/payments',
  ),
  DATABASE_POOL_MAX: integer(2).default(20),
  REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  QUEUE_PREFIX: z.string().default('svc'),
  IDEMPOTENCY_TTL_HOURS: integer(24).default(24),
});

const paymentsEnv = z.object({
  APPROVAL_THRESHOLD_PAISE: integer(0).default(200_000),
  APPROVAL_TTL_S: integer(1).default(24 * 3600),
  DAILY_CAP_PAISE: integer(1).default(5_000_000),
  CHECKOUT_SESSION_TTL_S: integer(1).default(15 * 60),
});

const signingEnv = z.object({
  SIGNATURE_CLOCK_SKEW_S: integer(1).default(300),
  SIGNING_PRIVATE_KEY: z.string().optional(),
  SIGNING_KEY_ENCRYPTION_KEY: aes256Key.optional(),
});

const rateLimitEnv = z.object({
  RATE_LIMIT_LOGIN_PER_MIN: integer(1).default(10),
  RATE_LIMIT_CREDENTIAL_PER_S: integer(1).optional(),
  RATE_LIMIT_PUBLIC_PER_S: integer(1).default(10),
  RATE_LIMIT_PUBLIC_BURST: integer(1).default(20),
  RATE_LIMIT_PUBLIC_PER_MIN: removed('RATE_LIMIT_PUBLIC_PER_S and RATE_LIMIT_PUBLIC_BURST'),
});

const webhooksEnv = z.object({
  WEBHOOK_SECRET_KEY: aes256Key.optional(),
  WEBHOOK_DISPATCH_INTERVAL_MS: integer(10).default(1000),
  WEBHOOK_TIMEOUT_MS: integer(100).default(10_000),
  WEBHOOK_RETRY_SCHEDULE_MS: msList.default(DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS),
});

const scaleOutEnv = z.object({
  PG_LISTEN: flag.default(true),
  DATABASE_LISTEN_URL: url(['postgres:', 'postgresql:']).optional(),
  CREDENTIAL_CACHE_TTL_MS: integer(0).default(5000),
});

const appEnv = z.object({
  ...serverEnv.shape,
  ...storageEnv.shape,
  ...paymentsEnv.shape,
  ...signingEnv.shape,
  ...rateLimitEnv.shape,
  ...webhooksEnv.shape,
  ...scaleOutEnv.shape,
});

/** Sandbox and test only: fixed, public development keys, so sealed secrets survive restarts. */
function devKey(purpose: string): Buffer {
  return createHash('sha256').update(`agent-payments dev ${purpose} (never live)`).digest();
}

function formatIssue(issue: z.core.$ZodIssue, env: Env): string {
  const name = String(issue.path[0] ?? 'configuration');
  const raw = env[name];
  const secret = /KEY|SECRET/.test(name);
  return raw === undefined || secret
    ? `${name} ${issue.message}`
    : `${name} ${issue.message} (got "${raw}")`;
}

export function loadConfig(env: Env = process.env): AppConfig {
  // Unset and empty mean the same: use the default.
  const given = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  );
  const parsed = appEnv.safeParse(given);
  if (!parsed.success) {
    throw new ConfigError(formatIssue(parsed.error.issues[0], given));
  }
  const e = parsed.data;
  const mode = e.MODE;
  const live = mode === 'live';
  const baseUrl = e.BASE_URL ?? `http://localhost:${e.PORT}`;
  if (live && !baseUrl.startsWith('https:')) {
    throw new ConfigError('BASE_URL must be https in live mode');
  }
  if (live && !e.SIGNING_PRIVATE_KEY) {
    throw new ConfigError(
      'SIGNING_PRIVATE_KEY is required in live mode (Ed25519 PKCS#8 PEM); generated keys are for sandbox and test only',
    );
  }
  if (live && !e.WEBHOOK_SECRET_KEY) {
    throw new ConfigError('WEBHOOK_SECRET_KEY is required in live mode (32 bytes, base64 or hex)');
  }
  return {
    mode,
    port: e.PORT,
    baseUrl,
    appUrl: e.APP_URL ?? `${baseUrl}/app`,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    redisUrl: e.REDIS_URL,
    queuePrefix: e.QUEUE_PREFIX,
    logLevel: e.LOG_LEVEL,
    bodyLimit: e.BODY_LIMIT,
    idempotencyTtlHours: e.IDEMPOTENCY_TTL_HOURS,
    signatureSkewSeconds: e.SIGNATURE_CLOCK_SKEW_S,
    signingPrivateKeyPem: e.SIGNING_PRIVATE_KEY
      ? e.SIGNING_PRIVATE_KEY.replace(/\\n/g, '\n')
      : null,
    signingKeyEncryptionKey:
      e.SIGNING_KEY_ENCRYPTION_KEY ?? (live ? null : devKey('signing key encryption key')),
    approvalThresholdPaise: e.APPROVAL_THRESHOLD_PAISE,
    approvalTtlSeconds: e.APPROVAL_TTL_S,
    dailyCapPaise: e.DAILY_CAP_PAISE,
    checkoutSessionTtlSeconds: e.CHECKOUT_SESSION_TTL_S,
    runMigrations: e.RUN_MIGRATIONS,
    runWorkers: e.RUN_WORKERS,
    sessionCookieSecure: e.SESSION_COOKIE_SECURE ?? live,
    rateLimitLoginPerMinute: e.RATE_LIMIT_LOGIN_PER_MIN,
    rateLimitCredentialPerSecond: e.RATE_LIMIT_CREDENTIAL_PER_S ?? (live ? 100 : 25),
    rateLimitPublicPerSecond: e.RATE_LIMIT_PUBLIC_PER_S,
    rateLimitPublicBurst: e.RATE_LIMIT_PUBLIC_BURST,
    webhookSecretKey: e.WEBHOOK_SECRET_KEY ?? devKey('webhook secret key'),
    webhookDispatchIntervalMs: e.WEBHOOK_DISPATCH_INTERVAL_MS,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    webhookRetryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE_MS,
    pgListen: e.PG_LISTEN,
    databaseListenUrl: e.DATABASE_LISTEN_URL ?? null,
    credentialCacheTtlMs: e.CREDENTIAL_CACHE_TTL_MS,
  };
}

/**
 * One-shot commands (the sandbox CLI) must not take queue jobs from a running server: unless the
 * operator said otherwise, the app they boot runs no workers.
 */
export function preferNoWorkers(): void {
  process.env.RUN_WORKERS ??= 'false';
}

/** Injection token for the validated AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');
