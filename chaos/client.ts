/**
 * A client that retries the way docs/operations.md asks integrators to: the same Idempotency-Key
 * on every retry of one request, Retry-After honoured, a retry on 503, 429, `409
 * idempotency_in_flight` and on no answer at all (connection refused or reset, timeout), and a
 * bound after which it gives up. Every attempt is recorded for the invariants (chaos/invariants.ts).
 */
import { randomUUID } from 'node:crypto';

import type { AttemptRow } from './invariants';

export interface Answer {
  /** null: no HTTP answer. */
  status: number | null;
  body: Record<string, unknown>;
  /** The error code of an error answer (`{error:{code}}` or ACP's `{code}`), else null. */
  code: string | null;
  /** No final answer within the bound. */
  gaveUp: boolean;
}

export interface CallOptions {
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  /** Sent on POSTs (the same on every retry); default a fresh UUID per call. */
  idempotencyKey?: string | null;
  /** Retry 4xx answers with these codes too (e.g. a control route refusing while paused). */
  retryCodes?: string[];
}

export interface ClientLimits {
  /** Give up on one request after this long (all retries together). */
  giveUpMs: number;
  /** Per-attempt timeout. */
  timeoutMs: number;
  /** Longest wait between attempts (a larger Retry-After is cut to this). */
  maxWaitMs: number;
}

function errorCode(body: Record<string, unknown>): string | null {
  const nested = body.error as { code?: unknown } | undefined;
  if (nested && typeof nested === 'object' && typeof nested.code === 'string') {
    return nested.code;
  }
  return typeof body.code === 'string' ? body.code : null;
}

export class RetryingClient {
  readonly attempts: AttemptRow[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly limits: ClientLimits,
    /** Only attempts against the app are recorded (the simulator's answers are not ours). */
    private readonly record: boolean,
  ) {}

  async call(
    flow: string,
    step: string,
    method: 'GET' | 'POST',
    path: string,
    opts: CallOptions = {},
  ): Promise<Answer> {
    const key =
      method === 'POST' && opts.idempotencyKey !== null
        ? (opts.idempotencyKey ?? randomUUID())
        : null;
    const headers: Record<string, string> = { ...opts.headers };
    let payload: string | undefined;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(opts.json);
    } else if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(opts.form).toString();
    }
    if (key) {
      headers['idempotency-key'] = key;
    }
    const deadline = Date.now() + this.limits.giveUpMs;
    let backoff = 250;
    let last: Answer = { status: null, body: {}, code: null, gaveUp: true };
    while (Date.now() < deadline) {
      let waitMs = backoff;
      try {
        const res = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers,
          body: payload,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.limits.timeoutMs),
        });
        const text = await res.text();
        let body: Record<string, unknown> = {};
        try {
          const parsed = JSON.parse(text) as unknown;
          body = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
        } catch {
          body = { text };
        }
        const retryAfter = res.headers.get('retry-after');
        if (this.record) {
          this.attempts.push({ flow, step, status: res.status, retry_after: retryAfter });
        }
        const code = errorCode(body);
        last = { status: res.status, body, code, gaveUp: false };
        const retryable =
          res.status === 503 ||
          res.status === 429 ||
          (res.status === 409 && code === 'idempotency_in_flight') ||
          (code !== null && (opts.retryCodes ?? []).includes(code));
        if (!retryable) {
          return last;
        }
        if (retryAfter && /^\d+$/.test(retryAfter.trim())) {
          waitMs = Number(retryAfter.trim()) * 1000;
        }
      } catch {
        if (this.record) {
          this.attempts.push({ flow, step, status: null, retry_after: null });
        }
        last = { status: null, body: {}, code: null, gaveUp: true };
      }
      backoff = Math.min(backoff * 2, this.limits.maxWaitMs);
      await new Promise((r) =>
        setTimeout(r, Math.min(waitMs, this.limits.maxWaitMs, Math.max(0, deadline - Date.now()))),
      );
    }
    return { ...last, gaveUp: true };
  }
}
