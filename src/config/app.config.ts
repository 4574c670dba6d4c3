import { createHash } from 'node:crypto';
import { inspect } from 'node:util';

import { z } from 'zod';

import { parseAes256Key } from '../common/crypto/sealed';
import { registryTcsTable, RULES } from '../rules/rule-catalog';
import type { TcsTable } from '../rules/tcs';

/**
 * The only reader of process.env (a lint rule keeps it so). Each area of the service has one zod
 * schema of the variables it reads; everything is validated once at boot, and a bad value stops
 * the process with one line naming the variable. docs/configuration.md lists them.
 */
export type Mode = 'sandbox' | 'test' | 'live';
export type RailName = 'sandbox' | 'gateway';

/**
 * A secret read from the environment. It prints as `[redacted]` however it is logged or
 * serialised (String, JSON, util.inspect), so a config object can never leak it by accident;
 * `reveal()` is called only where the secret is used (an HTTP Basic header, an HMAC key).
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return '[redacted]';
  }
}

/** The payment gateway (RAIL=gateway; docs/gateway.md "Going live on the gateway"). */
export interface GatewayConfig {
  /** Base address of the gateway API (without /v1). */
  apiUrl: string;
  /** Origin the checkout widget (checkout.js) is loaded from; the pay page's CSP allows it alone. */
  checkoutUrl: string;
  /** Public key id: sent to the browser (the widget needs it). */
  keyId: string;
  /** API key secret: HTTP Basic to the gateway and the payment-signature HMAC key. Never sent or logged. */
  keySecret: Secret;
  /** HMAC key of the gateway's inbound webhooks (X-Gateway-Signature). Never sent or logged. */
  webhookSecret: Secret;
  /** Per-call HTTP timeout; a call without an answer leaves the payment to the reconciler. */
  timeoutMs: number;
  /**
   * What the gateway refunds (GATEWAY_REFUND_MIN_PAISE, GATEWAY_REFUND_MAX_PAISE). loadConfig
   * always sets it; a configuration built by hand without it gets DEFAULT_GATEWAY_REFUND_LIMITS.
   */
  refundLimits?: GatewayRefundLimits;
}

/** The gateway's own refund limits (docs/gateway.md "Refund limits"). */
export interface GatewayRefundLimits {
  /** The smallest refund the gateway accepts, in paise. */
  minimumPaise: number;
  /** The largest single refund it accepts, in paise; null: none beyond what is left of the payment. */
  maximumPaise: number | null;
}

/**
 * The gateway refunds at least ₹1 (100 paise; its API answers "The amount must be between 100 and
 * …" below that, as the simulator does) and at most what is left of the payment, with no other cap.
 */
export const DEFAULT_GATEWAY_REFUND_LIMITS: GatewayRefundLimits = {
  minimumPaise: 100,
  maximumPaise: null,
};

export interface AppConfig {
  mode: Mode;
  port: number;
  /** Address the HTTP server binds (HOST): loopback unless a container sets 0.0.0.0. */
  host: string;
  baseUrl: string;
  appUrl: string;
  databaseUrl: string;
  databasePoolMax: number;
  redisUrl: string;
  /** Queue key prefix, so several app instances (tests) can share one Redis. */
  queuePrefix: string;
  logLevel: string;
  /**
   * Human-readable log lines (pino-pretty) instead of JSON. Default: on when stdout is a terminal,
   * except in live mode, which logs JSON unless LOG_PRETTY=true.
   */
  logPretty: boolean;
  /**
   * Bearer token for GET /metrics (compared in constant time). Null: /metrics is open in sandbox
   * and test, and not served at all (404) in live mode.
   */
  metricsToken: string | null;
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
  /** How long a mandate amendment waits for the person before it expires (MANDATE_AMENDMENT_TTL_S). */
  mandateAmendmentTtlSeconds: number;
  dailyCapPaise: number;
  checkoutSessionTtlSeconds: number;
  runMigrations: boolean;
  /**
   * How long the boot waits for PostgreSQL and Redis (together) before it gives up and exits
   * non-zero (BOOT_DEPENDENCY_WAIT_MS; src/database/preflight.ts, docs/operations.md "Boot").
   */
  bootDependencyWaitMs: number;
  runWorkers: boolean;
  sessionCookieSecure: boolean;
  /** Sign-in and sign-up attempts per minute per client address and email. */
  rateLimitLoginPerMinute: number;
  /**
   * Requests per second per credential (API key, agent credential, protocol key, person session),
   * shared by every instance through Redis. Defaults: 100 in live, 25 in sandbox and test.
   */
  rateLimitCredentialPerSecond: number;
  /**
   * A rate-limit count that Redis has not answered in this many ms counts as "Redis is down": the
   * request goes through uncounted (fail open) rather than waiting.
   */
  rateLimitRedisTimeoutMs: number;
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
   * Forex (src/forex). The pepper keys the HMAC-SHA-256 that stands for a PAN (the raw PAN is never
   * stored): a fixed development value outside live mode; null in live mode when unset, and then
   * PanVault stops the boot (FOREX_PAN_PEPPER is required in live). Its version is stored with
   * every hash so a new pepper can be introduced.
   */
  forexPanPepper: Buffer | null;
  forexPanKeyVersion: number;
  /** TCS rates keyed by financial year ("2025-26"); FOREX_TCS_TABLE overrides the sandbox values. */
  forexTcsTable: TcsTable;
  /**
   * AES-256-GCM key (32 bytes) sealing stored documents (src/documents). Dev key outside live
   * mode; null in live mode when unset, and then the document store stops the boot.
   */
  documentEncryptionKey: Buffer | null;
  /** The payment rail the pipeline uses (PAYMENT_RAIL in PaymentsModule). */
  rail: RailName;
  /**
   * How long an intent or refund left `processing` belongs to the request that started it; after
   * that the reconciler asks the rail what happened (longer than any rail call may take).
   */
  railReconcileAfterMs: number;
  /** Set when rail is 'gateway' (validated at boot), null on the sandbox rail. */
  gateway: GatewayConfig | null;
  /** Settlement reports and reconciliation (docs/gateway.md "Settlements and reconciliation"). */
  settlements: SettlementsConfig;
  /** Recurring debits under UPI AutoPay (docs/recurring.md "Recurring payments (UPI AutoPay)"). */
  autopay: AutopayConfig;
  /**
   * One LISTEN connection per instance (docs/operations.md "Running more than one instance"): wakes the outbox
   * dispatcher on commit and carries credential revocations. false: poll only, no credential cache.
   */
  pgListen: boolean;
  /** Where that connection goes; null: databaseUrl. Behind PgBouncer (transaction mode), Postgres itself. */
  databaseListenUrl: string | null;
  /** A person's data rights (docs/personal-data.md); DEFAULT_DATA_RIGHTS when built by hand. */
  dataRights?: DataRightsConfig;
  /** How long a resolved credential is reused in process; 0: never (every request reads Postgres). */
  credentialCacheTtlMs: number;
  /** The retention schedule's periods (src/retention; docs/personal-data.md "Retention schedule"). */
  retention: RetentionConfig;
  /** The breach register (src/breaches; docs/personal-data.md "Breach register"). */
  breaches: BreachesConfig;
}

/**
 * The retention job (src/retention/retention-schedule.ts). Forex documents follow the KYC records'
 * period (dataRights.kycRecordsYears); the abandoned sign-up period is our choice [U].
 */
export interface RetentionConfig {
  /** How often the retention job runs (it deletes at most batchSize rows of each kind per run). */
  everyMs: number;
  batchSize: number;
  /** A sign-up nobody signed in to for this many days, whose workspace holds nothing else [U]. */
  abandonedSignupDays: number;
}

/** The breach register; the contact in every notice is the grievance officer (dataRights). */
export interface BreachesConfig {
  /** Hours from becoming aware to the detailed report to the Board (DPDP Rules 2025 r.7(2)(b): 72). */
  boardReportHours: number;
}

/**
 * Grievance officer and legal-hold periods (DPDP Act 2023 ss. 8(10), 13; DOMAIN.md 28a, 28b).
 * Values marked [U] in docs/personal-data.md are sandbox values to be confirmed.
 */
export interface DataRightsConfig {
  grievanceOfficerName: string;
  grievanceOfficerEmail: string;
  /** Days within which a grievance is answered [U: the Rules' ceiling is not confirmed here]. */
  grievanceResponseDays: number;
  /** Years payment records are kept after the payment [U: commonly 5, RBI/PMLA]. */
  paymentRecordsYears: number;
  /** Years KYC and forex records are kept after the file [U: commonly 5, PMLA/FEMA]. */
  kycRecordsYears: number;
}

export const DEFAULT_DATA_RIGHTS: DataRightsConfig = {
  grievanceOfficerName: 'Grievance Officer (sandbox)',
  grievanceOfficerEmail: 'grievance@example.invalid',
  grievanceResponseDays: 30,
  paymentRecordsYears: 5,
  kycRecordsYears: 5,
};

export interface SettlementsConfig {
  /** How often the repeatable job pulls the gateway's settlement report (RAIL=gateway only). */
  reconcileEveryMs: number;
  /** Calendar days (IST) of the report each pull reads, today included. */
  lookbackDays: number;
  /** A captured payment or processed refund no report carries after this long is `missing`. */
  missingAfterMs: number;
}

/** A daily window, minutes after 00:00 IST, [start, end). */
export interface IstWindow {
  startMinute: number;
  endMinute: number;
}

export interface AutopayConfig {
  /** Windows in which no AutoPay debit is attempted (NPCI peak hours). */
  blockedWindowsIst: IstWindow[];
  /** Least time between the pre-debit notice and the debit. */
  noticeLeadMs: number;
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

/**
 * TCS values by financial year from the rules registry (`forex.tcs`, docs/rules.md; DOMAIN.md B.15,
 * B.16, FY 2026-27 uncertain): ₹10 lakh per PAN per financial year; education funded by a loan
 * nil; education and medical 5% above it (2% from FY 2026-27); any other LRS purpose 20% above it.
 */
export const DEFAULT_FOREX_TCS_TABLE: TcsTable = registryTcsTable();

const bps = z.number().int().min(0).max(10_000);
const tcsRate = z
  .object({ within_threshold_bps: bps, above_threshold_bps: bps })
  .strict()
  .transform((r) => ({
    withinThresholdBps: r.within_threshold_bps,
    aboveThresholdBps: r.above_threshold_bps,
  }));
/** FOREX_TCS_TABLE: JSON {"2025-26": {threshold_paise, education_loan, education_medical, other}}. */
const tcsTable = z
  .string()
  .transform((v, ctx) => {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(
      z.string().regex(/^[0-9]{4}-[0-9]{2}$/),
      z
        .object({
          threshold_paise: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
          education_loan: tcsRate,
          education_medical: tcsRate,
          other: tcsRate,
        })
        .strict()
        .transform((y) => ({
          thresholdPaise: y.threshold_paise,
          educationLoan: y.education_loan,
          educationMedical: y.education_medical,
          other: y.other,
        })),
      { error: 'must map financial years ("2025-26") to TCS rates (docs/configuration.md)' },
    ),
  );

const removed = (instead: string) => z.never({ error: `was replaced by ${instead}` }).optional();

// One schema per area.

const serverEnv = z.object({
  MODE: z
    .enum(['sandbox', 'test', 'live'], { error: 'must be sandbox, test or live' })
    .default('sandbox'),
  PORT: integer(0).default(3000),
  // Loopback by default: nothing outside this machine reaches a developer's service. The image
  // (Dockerfile, docker-compose.yml) sets 0.0.0.0 (docs/configuration.md).
  HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:%-]{1,253}$/, { error: 'must be an IP address or a host name' })
    .default('127.0.0.1'),
  BASE_URL: url(['http:', 'https:']).optional(),
  APP_URL: url(['http:', 'https:']).optional(),
  LOG_LEVEL: z.string().default('info'),
  LOG_PRETTY: flag.optional(),
  METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{32,512}$/, {
      error: 'must be 32 to 512 visible ASCII characters (e.g. `openssl rand -hex 32`)',
    })
    .optional(),
  BODY_LIMIT: z.string().default('256kb'),
  SESSION_COOKIE_SECURE: flag.optional(),
  RUN_MIGRATIONS: flag.default(true),
  BOOT_DEPENDENCY_WAIT_MS: integer(0).default(180_000),
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
  APPROVAL_THRESHOLD_PAISE: integer(0).default(RULES.latest<number>('payments.approval_threshold')),
  APPROVAL_TTL_S: integer(1).default(24 * 3600),
  MANDATE_AMENDMENT_TTL_S: integer(60).default(7 * 24 * 3600),
  DAILY_CAP_PAISE: integer(1).default(RULES.latest<number>('payments.daily_cap_default')),
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
  RATE_LIMIT_REDIS_TIMEOUT_MS: integer(1).default(250),
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

const forexEnv = z.object({
  FOREX_PAN_PEPPER: aes256Key.optional(),
  FOREX_PAN_KEY_VERSION: integer(1).default(1),
  FOREX_TCS_TABLE: tcsTable.optional(),
});

const documentsEnv = z.object({
  DOCUMENT_ENCRYPTION_KEY: aes256Key.optional(),
});

const railEnv = z.object({
  RAIL: z.enum(['sandbox', 'gateway'], { error: 'must be sandbox or gateway' }).default('sandbox'),
  RAIL_RECONCILE_AFTER_MS: integer(100).default(60_000),
  GATEWAY_API_URL: url(['http:', 'https:']).optional(),
  GATEWAY_CHECKOUT_URL: url(['http:', 'https:']).optional(),
  GATEWAY_KEY_ID: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,64}$/, { error: 'must be 1-64 letters, digits or _' })
    .optional(),
  GATEWAY_KEY_SECRET: z.string().min(8, { error: 'must be at least 8 characters' }).optional(),
  GATEWAY_WEBHOOK_SECRET: z.string().min(8, { error: 'must be at least 8 characters' }).optional(),
  GATEWAY_TIMEOUT_MS: integer(100).default(10_000),
  GATEWAY_REFUND_MIN_PAISE: integer(1).default(DEFAULT_GATEWAY_REFUND_LIMITS.minimumPaise),
  GATEWAY_REFUND_MAX_PAISE: integer(1).optional(),
});

const istWindows = z.string().transform((v, ctx) => {
  const out: { startMinute: number; endMinute: number }[] = [];
  for (const part of v
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const m = /^(\d{2}):(\d{2})-(\d{2}):(\d{2})$/.exec(part);
    const start = m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
    const end = m ? Number(m[3]) * 60 + Number(m[4]) : NaN;
    if (!m || Number(m[2]) > 59 || Number(m[4]) > 59 || !(start < end) || end > 24 * 60) {
      ctx.addIssue({ code: 'custom', message: 'must be comma-separated HH:MM-HH:MM windows' });
      return z.NEVER;
    }
    out.push({ startMinute: start, endMinute: end });
  }
  return out;
});

const settlementsEnv = z.object({
  SETTLEMENT_RECONCILE_EVERY_MS: integer(1000).default(3_600_000),
  SETTLEMENT_LOOKBACK_DAYS: integer(1).default(3),
  SETTLEMENT_MISSING_AFTER_MS: integer(0).default(3 * 24 * 3_600_000),
});

const autopayEnv = z.object({
  AUTOPAY_BLOCKED_WINDOWS_IST: istWindows.default(
    RULES.latest<IstWindow[]>('autopay.blocked_windows_ist'),
  ),
});

const scaleOutEnv = z.object({
  PG_LISTEN: flag.default(true),
  DATABASE_LISTEN_URL: url(['postgres:', 'postgresql:']).optional(),
  CREDENTIAL_CACHE_TTL_MS: integer(0).default(5000),
});

/** docs/personal-data.md "Retention schedule" and "Breach register". */
const personalDataEnv = z.object({
  RETENTION_EVERY_MS: integer(1000).default(600_000),
  RETENTION_BATCH_SIZE: integer(1).default(500),
  RETENTION_ABANDONED_SIGNUP_DAYS: integer(1).default(30),
  BREACH_BOARD_REPORT_HOURS: integer(1).default(72),
});

/** docs/personal-data.md "Your rights and how to use them". */
const dataRightsEnv = z.object({
  GRIEVANCE_OFFICER_NAME: z
    .string()
    .min(1)
    .max(200)
    .default(DEFAULT_DATA_RIGHTS.grievanceOfficerName),
  GRIEVANCE_OFFICER_EMAIL: z.email().default(DEFAULT_DATA_RIGHTS.grievanceOfficerEmail),
  GRIEVANCE_RESPONSE_DAYS: integer(1).default(DEFAULT_DATA_RIGHTS.grievanceResponseDays),
  LEGAL_HOLD_PAYMENT_YEARS: integer(1).default(DEFAULT_DATA_RIGHTS.paymentRecordsYears),
  LEGAL_HOLD_KYC_YEARS: integer(1).default(DEFAULT_DATA_RIGHTS.kycRecordsYears),
});

const appEnv = z.object({
  ...serverEnv.shape,
  ...storageEnv.shape,
  ...paymentsEnv.shape,
  ...signingEnv.shape,
  ...rateLimitEnv.shape,
  ...webhooksEnv.shape,
  ...forexEnv.shape,
  ...documentsEnv.shape,
  ...railEnv.shape,
  ...settlementsEnv.shape,
  ...autopayEnv.shape,
  ...scaleOutEnv.shape,
  ...dataRightsEnv.shape,
  ...personalDataEnv.shape,
});

/** Sandbox and test only: fixed, public development keys, so sealed secrets survive restarts. */
function devKey(purpose: string): Buffer {
  return createHash('sha256').update(`agent-payments dev ${purpose} (never live)`).digest();
}

function formatIssue(issue: z.core.$ZodIssue, env: Env): string {
  const name = String(issue.path[0] ?? 'configuration');
  const raw = env[name];
  const secret = /KEY|SECRET|TOKEN|PEPPER/.test(name);
  return raw === undefined || secret
    ? `${name} ${issue.message}`
    : `${name} ${issue.message} (got "${raw}")`;
}

/** Whether stdout is a terminal: decides the default of LOG_PRETTY. */
export interface Terminal {
  stdoutIsTty: boolean;
}

export function loadConfig(
  env: Env = process.env,
  terminal: Terminal = { stdoutIsTty: process.stdout.isTTY === true },
): AppConfig {
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
  const gateway = gatewayConfig(e, live);
  return {
    mode,
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    appUrl: e.APP_URL ?? `${baseUrl}/app`,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    redisUrl: e.REDIS_URL,
    queuePrefix: e.QUEUE_PREFIX,
    logLevel: e.LOG_LEVEL,
    logPretty: e.LOG_PRETTY ?? (terminal.stdoutIsTty && !live),
    metricsToken: e.METRICS_TOKEN ?? null,
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
    mandateAmendmentTtlSeconds: e.MANDATE_AMENDMENT_TTL_S,
    dailyCapPaise: e.DAILY_CAP_PAISE,
    checkoutSessionTtlSeconds: e.CHECKOUT_SESSION_TTL_S,
    runMigrations: e.RUN_MIGRATIONS,
    bootDependencyWaitMs: e.BOOT_DEPENDENCY_WAIT_MS,
    runWorkers: e.RUN_WORKERS,
    sessionCookieSecure: e.SESSION_COOKIE_SECURE ?? live,
    rateLimitLoginPerMinute: e.RATE_LIMIT_LOGIN_PER_MIN,
    rateLimitCredentialPerSecond: e.RATE_LIMIT_CREDENTIAL_PER_S ?? (live ? 100 : 25),
    rateLimitRedisTimeoutMs: e.RATE_LIMIT_REDIS_TIMEOUT_MS,
    rateLimitPublicPerSecond: e.RATE_LIMIT_PUBLIC_PER_S,
    rateLimitPublicBurst: e.RATE_LIMIT_PUBLIC_BURST,
    webhookSecretKey: e.WEBHOOK_SECRET_KEY ?? devKey('webhook secret key'),
    webhookDispatchIntervalMs: e.WEBHOOK_DISPATCH_INTERVAL_MS,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    webhookRetryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE_MS,
    forexPanPepper: e.FOREX_PAN_PEPPER ?? (live ? null : devKey('forex pan pepper')),
    forexPanKeyVersion: e.FOREX_PAN_KEY_VERSION,
    forexTcsTable: e.FOREX_TCS_TABLE ?? DEFAULT_FOREX_TCS_TABLE,
    documentEncryptionKey:
      e.DOCUMENT_ENCRYPTION_KEY ?? (live ? null : devKey('document encryption key')),
    rail: e.RAIL,
    railReconcileAfterMs: e.RAIL_RECONCILE_AFTER_MS,
    gateway,
    settlements: {
      reconcileEveryMs: e.SETTLEMENT_RECONCILE_EVERY_MS,
      lookbackDays: e.SETTLEMENT_LOOKBACK_DAYS,
      missingAfterMs: e.SETTLEMENT_MISSING_AFTER_MS,
    },
    autopay: {
      blockedWindowsIst: e.AUTOPAY_BLOCKED_WINDOWS_IST,
      noticeLeadMs: RULES.latest<number>('autopay.pre_debit_notice_lead'),
    },
    pgListen: e.PG_LISTEN,
    databaseListenUrl: e.DATABASE_LISTEN_URL ?? null,
    dataRights: {
      grievanceOfficerName: e.GRIEVANCE_OFFICER_NAME,
      grievanceOfficerEmail: e.GRIEVANCE_OFFICER_EMAIL,
      grievanceResponseDays: e.GRIEVANCE_RESPONSE_DAYS,
      paymentRecordsYears: e.LEGAL_HOLD_PAYMENT_YEARS,
      kycRecordsYears: e.LEGAL_HOLD_KYC_YEARS,
    },
    credentialCacheTtlMs: e.CREDENTIAL_CACHE_TTL_MS,
    retention: {
      everyMs: e.RETENTION_EVERY_MS,
      batchSize: e.RETENTION_BATCH_SIZE,
      abandonedSignupDays: e.RETENTION_ABANDONED_SIGNUP_DAYS,
    },
    breaches: {
      boardReportHours: e.BREACH_BOARD_REPORT_HOURS,
    },
  };
}

/**
 * The gateway area: every variable is required with RAIL=gateway (https only in live mode) and
 * the reconciler must wait longer than a gateway call may take. Errors never print a secret.
 */
function gatewayConfig(e: z.infer<typeof appEnv>, live: boolean): GatewayConfig | null {
  if (e.RAIL !== 'gateway') {
    return null;
  }
  const missing = (
    ['GATEWAY_API_URL', 'GATEWAY_KEY_ID', 'GATEWAY_KEY_SECRET', 'GATEWAY_WEBHOOK_SECRET'] as const
  ).find((name) => !e[name]);
  if (missing) {
    throw new ConfigError(`${missing} is required when RAIL=gateway`);
  }
  const apiUrl = e.GATEWAY_API_URL as string;
  const checkoutUrl = e.GATEWAY_CHECKOUT_URL ?? apiUrl;
  if (live && (!apiUrl.startsWith('https:') || !checkoutUrl.startsWith('https:'))) {
    throw new ConfigError('GATEWAY_API_URL and GATEWAY_CHECKOUT_URL must be https in live mode');
  }
  if (
    e.GATEWAY_REFUND_MAX_PAISE !== undefined &&
    e.GATEWAY_REFUND_MAX_PAISE < e.GATEWAY_REFUND_MIN_PAISE
  ) {
    throw new ConfigError(
      `GATEWAY_REFUND_MAX_PAISE must be at least GATEWAY_REFUND_MIN_PAISE (${e.GATEWAY_REFUND_MIN_PAISE})`,
    );
  }
  if (e.RAIL_RECONCILE_AFTER_MS <= e.GATEWAY_TIMEOUT_MS) {
    throw new ConfigError(
      `RAIL_RECONCILE_AFTER_MS must be greater than GATEWAY_TIMEOUT_MS (${e.GATEWAY_TIMEOUT_MS})`,
    );
  }
  return {
    apiUrl,
    checkoutUrl,
    keyId: e.GATEWAY_KEY_ID as string,
    keySecret: new Secret(e.GATEWAY_KEY_SECRET as string),
    webhookSecret: new Secret(e.GATEWAY_WEBHOOK_SECRET as string),
    timeoutMs: e.GATEWAY_TIMEOUT_MS,
    refundLimits: {
      minimumPaise: e.GATEWAY_REFUND_MIN_PAISE,
      maximumPaise: e.GATEWAY_REFUND_MAX_PAISE ?? null,
    },
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
