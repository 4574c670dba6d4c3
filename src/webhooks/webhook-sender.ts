import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';

import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';

import {
  AddressRefusedError,
  createGuardedAgents,
  GuardedAgents,
} from '../common/net/guarded-agents';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { webhookPolicy } from './url-policy';

export const RESPONSE_BODY_LIMIT = 1024;
/** An idle kept-alive connection is closed after this long (below common servers' 5 s). */
export const KEEP_ALIVE_IDLE_MS = 4_000;
/** Idle connections kept per receiver (host and port). */
const MAX_IDLE_SOCKETS_PER_RECEIVER = 8;
export const USER_AGENT = 'agent-payments-webhooks/1.0 (+https://www.standardwebhooks.com)';

/**
 * How a delivery is signed, by endpoint kind: `standard` (Standard Webhooks, seller endpoints) or
 * `merchant` (ACP order events: `Merchant-Signature: t=<unix>,v1=<hex HMAC-SHA256(t + "." + body)>`).
 */
export type SignatureScheme = 'standard' | 'merchant' | 'external';

export interface OutgoingWebhook {
  url: string;
  /** Default `standard`. */
  scheme?: SignatureScheme;
  /** Event id: the webhook-id header, the same on every attempt so consumers can dedupe. */
  eventId: string;
  /** The exact bytes sent and signed. */
  body: string;
  /** Current secret first; during a rotation also the previous one (one signature each). */
  secrets: string[];
  /** `external` only: the attempt's headers (an EndpointKindSigner's, e.g. UCP's RFC 9421). */
  headers?: (at: Date) => Record<string, string>;
}

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
}

/**
 * ACP Merchant-Signature over `<unix seconds>.<raw body>`, keyed with the secret exactly as the
 * receiver was given it (its UTF-8 bytes).
 */
export function merchantSignature(secret: string, unixSeconds: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

/**
 * Headers of one attempt. Standard Webhooks: several secrets give several space-separated
 * signatures. Merchant-Signature carries one v1 (order receivers have no rotation); the event id,
 * stable across retries, goes in Request-Id for receivers to dedupe on, with the signing time in
 * Timestamp (RFC 3339), both optional headers of the ACP webhook spec.
 */
export function signedHeaders(msg: OutgoingWebhook, at: Date): Record<string, string> {
  if (msg.scheme === 'external' && msg.headers) {
    return { 'user-agent': USER_AGENT, ...msg.headers(at) };
  }
  if (msg.scheme === 'merchant') {
    const t = Math.floor(at.getTime() / 1000);
    return {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'request-id': msg.eventId,
      timestamp: new Date(t * 1000).toISOString(),
      'merchant-signature': merchantSignature(msg.secrets[0], t, msg.body),
    };
  }
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': msg.eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': msg.secrets
      .map((s) => new Webhook(s).sign(msg.eventId, at, msg.body))
      .join(' '),
  };
}

function describeError(
  err: Error & { code?: string },
  timeoutMs: number,
  timedOut: boolean,
): string {
  if (timedOut) {
    return `timeout after ${timeoutMs} ms`;
  }
  if (err instanceof AddressRefusedError) {
    return `address refused: ${err.message}`;
  }
  return err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message;
}

/**
 * One HTTP POST of a signed event. Never throws: every outcome becomes a SendResult (an attempt
 * row). Redirects are not followed (a 3xx is a failure), so a receiver cannot bounce us to an
 * address the policy refuses.
 *
 * Where it may connect is decided at connect time, after DNS resolution, by the guarded agents of
 * the mode's policy (request-filtering-agent behind our rules; src/webhooks/url-policy.ts). One
 * agent pair per policy, made once, with keep-alive: a receiver's connection is reused by the next
 * delivery to it (docs/webhooks.md "Webhooks"). Every pooled socket was checked when it connected, and a
 * new connection (a socket that went idle for KEEP_ALIVE_IDLE_MS is closed) is checked again. A
 * delivery whose reused socket turns out closed by the receiver (reset before any answer) is sent
 * once more at once on a new connection; receivers dedupe on the event id anyway.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly agents = new Map<string, GuardedAgents>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    for (const mode of ['live', 'test'] as const) {
      const policy = webhookPolicy(mode);
      this.agents.set(
        policy.kind,
        createGuardedAgents(policy, {
          keepAlive: true,
          maxFreeSockets: MAX_IDLE_SOCKETS_PER_RECEIVER,
          timeout: KEEP_ALIVE_IDLE_MS,
        }),
      );
    }
  }

  onModuleDestroy(): void {
    for (const agents of this.agents.values()) {
      agents.http.destroy();
      agents.https.destroy();
    }
  }

  /** The mode is read on every send, like every other check here. */
  private agentsForMode(): GuardedAgents {
    return this.agents.get(webhookPolicy(this.config.mode).kind)!;
  }

  send(msg: OutgoingWebhook): Promise<SendResult> {
    const timeoutMs = this.config.webhookTimeoutMs;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      let timedOut = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (r: Omit<SendResult, 'durationMs'>) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          resolve({ ...r, durationMs: elapsed() });
        }
      };
      const fail = (err: Error) =>
        finish({
          ok: false,
          statusCode: null,
          error: describeError(err, timeoutMs, timedOut),
          responseBody: null,
        });

      let url: URL;
      try {
        url = new URL(msg.url);
      } catch {
        return fail(new Error('invalid url'));
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        return fail(new Error(`url must use https or http (got ${url.protocol})`));
      }
      if (this.config.mode === 'live' && url.protocol !== 'https:') {
        return fail(new Error('url must use https in live mode'));
      }
      const body = Buffer.from(msg.body, 'utf8');
      const secure = url.protocol === 'https:';
      const agents = this.agentsForMode();
      const post = (again: boolean) => {
        const req = (secure ? https : http).request(url, {
          method: 'POST',
          // Wall time, not Clock: receivers compare webhook-timestamp with their own clocks (±5 min).
          headers: { ...signedHeaders(msg, new Date()), 'content-length': String(body.length) },
          agent: secure ? agents.https : agents.http,
        });
        clearTimeout(timer);
        timer = setTimeout(() => {
          timedOut = true;
          req.destroy(new Error('timeout'));
        }, timeoutMs);
        req.on('error', (err: Error & { code?: string }) => {
          if (!again && !timedOut && req.reusedSocket && err.code === 'ECONNRESET') {
            post(true); // the receiver closed the idle connection as we reused it
            return;
          }
          fail(err);
        });
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const done = () => {
            const status = res.statusCode ?? 0;
            // Postgres text cannot hold NUL; the rest is kept as the receiver sent it.
            const text = Buffer.concat(chunks)
              .subarray(0, RESPONSE_BODY_LIMIT)
              .toString('utf8')
              .replace(/\0/g, '');
            finish({
              ok: status >= 200 && status < 300,
              statusCode: status,
              error: status >= 200 && status < 300 ? null : `receiver answered HTTP ${status}`,
              responseBody: text.length > 0 ? text : null,
            });
          };
          res.on('data', (chunk: Buffer) => {
            if (size < RESPONSE_BODY_LIMIT) {
              chunks.push(chunk);
            }
            size += chunk.length;
            if (size >= RESPONSE_BODY_LIMIT) {
              done(); // enough to show; do not download the rest (nor reuse this connection)
              res.destroy();
            }
          });
          // Read to the end, so the connection can serve the next delivery.
          res.on('end', done);
          res.on('error', done);
        });
        req.end(body);
      };
      post(false);
    });
  }
}
