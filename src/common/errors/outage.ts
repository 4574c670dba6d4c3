/**
 * Tells a backing-service outage (Postgres or Redis unreachable, restarting, refusing or dropping
 * connections, pool exhausted) apart from a bug. An outage is answered 503 service_unavailable
 * with Retry-After (all-exceptions.filter.ts), never a 500: the request did not fail because of
 * what the client sent or a defect, and the same request will work once the service is back.
 *
 * Pure and synchronous: it only inspects the error (and what it wraps: TypeORM's driverError,
 * `cause`, an AggregateError's `errors`), so it is unit-tested without a database.
 */

/** Seconds a client should wait before retrying while a backing service is away. */
export const OUTAGE_RETRY_AFTER_SECONDS = 3;

export type OutageDependency = 'postgres' | 'redis' | 'network';

export interface Outage {
  dependency: OutageDependency;
  /** Short, loggable cause: a SQLSTATE, a socket error code or the driver's message. */
  reason: string;
}

/**
 * SQLSTATEs that mean "this connection or server is not serving now", not "this statement is
 * wrong". 08 connection exception; 53 insufficient resources (53300 too_many_connections);
 * 57P01 admin_shutdown (pg_terminate_backend, fast shutdown), 57P02 crash_shutdown, 57P03
 * cannot_connect_now (starting up, shutting down, recovery), 57P05 idle_session_timeout;
 * 25P03 idle_in_transaction_session_timeout. 55000 is special-cased below: it is only an outage
 * when the database does not accept connections (ALLOW_CONNECTIONS false).
 */
const SQLSTATE_CLASSES = ['08', '53'];
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P05', '25P03']);
const NOT_ACCEPTING = /not currently accepting connections|does not allow connections/i;

/** Socket-level failures of any client (pg, ioredis): the peer is unreachable or went away. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** node-postgres and pg-pool messages for a lost, closed or unobtainable connection. */
const PG_MESSAGES = [
  /^Connection terminated/, // "… unexpectedly", "… due to connection timeout"
  /is not queryable/, // "Client was closed and is not queryable", "… encountered a connection error …"
  /^timeout exceeded when trying to connect/, // pool wait (connectionTimeoutMillis)
  /^Cannot use a pool after calling end on the pool/,
];

/** ioredis messages when the connection is down (offline queue off, or retries exhausted). */
const REDIS_MESSAGES = [
  /^Connection is closed\.?$/,
  /^Reached the max retries per request limit/,
  /^Stream isn't writeable and enableOfflineQueue options is false/,
];

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function classifyOne(e: ErrorLike): Outage | null {
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  const name = typeof e.name === 'string' ? e.name : '';
  if (/^[0-9A-Z]{5}$/.test(code)) {
    if (SQLSTATES.has(code) || SQLSTATE_CLASSES.includes(code.slice(0, 2))) {
      return { dependency: 'postgres', reason: `${code} ${message}`.trim() };
    }
    if (code === '55000' && NOT_ACCEPTING.test(message)) {
      return { dependency: 'postgres', reason: `${code} ${message}` };
    }
    return null; // any other SQLSTATE is about the statement, not the connection
  }
  if (name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((re) => re.test(message))) {
    return { dependency: 'redis', reason: message || name };
  }
  // TypeORM releases a query runner whose connection emitted an error (server terminated it
  // while idle in a transaction); the transaction's next query then fails with this.
  if (
    name === 'QueryRunnerProviderAlreadyReleasedError' ||
    PG_MESSAGES.some((re) => re.test(message))
  ) {
    return { dependency: 'postgres', reason: message };
  }
  if (SOCKET_CODES.has(code)) {
    return { dependency: 'network', reason: code };
  }
  return null;
}

/**
 * The outage this error stands for, or null when it is anything else. Looks through wrappers
 * (QueryFailedError.driverError, Error.cause, AggregateError.errors) a few levels deep.
 */
export function outageOf(err: unknown): Outage | null {
  const seen = new Set<unknown>();
  const queue: { e: unknown; depth: number }[] = [{ e: err, depth: 0 }];
  while (queue.length > 0) {
    const { e, depth } = queue.shift()!;
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 4) {
      continue;
    }
    seen.add(e);
    const candidate = e as ErrorLike;
    const found = classifyOne(candidate);
    if (found) {
      return found;
    }
    for (const inner of [candidate.driverError, candidate.cause]) {
      queue.push({ e: inner, depth: depth + 1 });
    }
    if (Array.isArray(candidate.errors)) {
      for (const inner of candidate.errors as unknown[]) {
        queue.push({ e: inner, depth: depth + 1 });
      }
    }
  }
  return null;
}
