import type { Params } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { Options } from 'pino-http';
import pretty from 'pino-pretty';

import type { AppConfig } from '../../config/app.config';
import { identityNumberIn, identityNumberInPath } from '../identity/identity-numbers';
import { assignRequestId } from './request-id';

/**
 * Requests whose completion lines would drown the rest: load-balancer and Kubernetes probes, and
 * Prometheus scrapes (docs/operations.md "Operating it"). They are still counted in the HTTP metrics.
 */
export const QUIET_PATHS: ReadonlySet<string> = new Set([
  '/health',
  '/health/live',
  '/health/ready',
  '/metrics',
]);

/**
 * Where secrets could sit in a logged object if a serializer were ever bypassed. The serializers
 * below already keep only method, path (no query), request id, idempotency key and user agent.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'req.headers.signature',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
];

interface LoggedRequest {
  method: string;
  url: string;
  id: string;
  headers: Record<string, string | undefined>;
}

function pathOf(url: string): string {
  return url.split('?')[0];
}

/** Logged text that holds an identity number (a refused request's path or key) is withheld. */
export const WITHHELD = '[withheld: identity number]';

function withheld<T extends string | undefined>(value: T): T | string {
  return value === undefined || identityNumberIn(value) === null ? value : WITHHELD;
}

/** A path is read as the edge reads it (identityNumberInPath): whole and segment by segment. */
function withheldPath(path: string): string {
  return identityNumberInPath(path) === null ? path : WITHHELD;
}

/**
 * Path segments that are secrets or capabilities (docs/security.md "Secrets out of logs"): a
 * delegated payment token (`vt_`, a payment credential: /app/consent/tokens/vt_…/revoke), the ids
 * that alone open a payment page (`qt_` quotes, `hco_` hosted checkouts, `plk_` payment links:
 * src/quotes/unguessable-id.ts), and credentials (CREDENTIAL_PREFIX: `sk_live_`, `sk_test_`,
 * `agc_`, `acpk_`), should one ever be sent in a path. Matched on the decoded segment; the prefix
 * is kept so a line still says what was addressed.
 */
const SECRET_SEGMENT = /^(vt|qt|hco|plk|sk_live|sk_test|agc|acpk)_[^/]*$/i;

/** Marks a redacted segment after its prefix: `vt_[redacted]`. */
export const REDACTED_ID = '[redacted]';

/** The path with every secret-ish id segment replaced by its prefix and REDACTED_ID. */
export function redactSecretIds(path: string): string {
  if (!path.includes('_') && !path.includes('%')) {
    return path;
  }
  return path
    .split('/')
    .map((segment) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        // Read as sent.
      }
      const match = SECRET_SEGMENT.exec(decoded);
      return match ? `${match[1]}_${REDACTED_ID}` : segment;
    })
    .join('/');
}

/**
 * pino-http options. Every line written while a request runs carries its `request_id` at the top
 * level (quietReqLogger binds it on the request's child logger, which nestjs-pino hands to every
 * Nest Logger call in that request); the completion line adds req {method, path, …}, res {status}
 * and responseTime. Credentials, signatures, cookies, query strings and bodies are never logged, nor a path,
 * Idempotency-Key or User-Agent holding an identity number (the edge refuses such requests), nor a
 * token, capability or credential id in a path (redactSecretIds).
 */
export function pinoHttpOptions(config: AppConfig): Options {
  return {
    level: config.logLevel,
    genReqId: (req, res) => assignRequestId(req as never, res as never),
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'request_id' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method,
        path: redactSecretIds(withheldPath(pathOf(req.url))),
        request_id: req.id,
        idempotency_key: withheld(req.headers['idempotency-key']),
        user_agent: withheld(req.headers['user-agent']),
      }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    autoLogging: { ignore: (req) => QUIET_PATHS.has(pathOf(req.url ?? '')) },
  };
}

interface PrettyLine {
  request_id?: string;
  context?: string;
  req?: { method?: string; path?: string };
  res?: { status?: number };
  responseTime?: number;
  [key: string]: unknown;
}

/**
 * One readable line per log call: time, level, [request id], (context), message and, for a
 * finished request, `METHOD /path → status in N ms`. Other fields follow on the same line.
 */
export function prettyMessage(log: PrettyLine, messageKey: string): string {
  const id = log.request_id ? `[${log.request_id}] ` : '';
  const context = log.context ? `(${log.context}) ` : '';
  const message = typeof log[messageKey] === 'string' ? log[messageKey] : '';
  const http =
    log.req && log.res
      ? ` ${log.req.method} ${log.req.path} → ${log.res.status} in ${log.responseTime} ms`
      : '';
  return `${id}${context}${message}${http}`;
}

/** The pino-pretty stream (in-process, no worker thread); `destination` is for tests. */
export function prettyStream(destination?: NodeJS.WritableStream): DestinationStream {
  return pretty({
    destination: destination ?? 1,
    sync: destination === undefined,
    colorize: destination === undefined ? process.stdout.isTTY === true : false,
    translateTime: 'SYS:HH:MM:ss.l',
    singleLine: true,
    ignore: 'pid,hostname,req,res,responseTime,request_id,context,banner',
    messageFormat: (log, messageKey) => prettyMessage(log, messageKey),
  });
}

/**
 * nestjs-pino parameters: JSON lines on stdout, or readable lines through pino-pretty when
 * LOG_PRETTY is on (docs/operations.md "Operating it"). `destination` replaces stdout (tests).
 */
export function loggerOptions(config: AppConfig, destination?: NodeJS.WritableStream): Params {
  const options = pinoHttpOptions(config);
  if (config.logPretty) {
    return { pinoHttp: [options, prettyStream(destination)] };
  }
  return { pinoHttp: destination ? [options, destination] : options };
}
