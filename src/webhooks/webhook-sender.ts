import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';

import { Inject, Injectable } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';

import { APP_CONFIG, AppConfig, Mode } from '../config/app.config';
import { addressRefusal, hostOf } from './url-policy';

export const RESPONSE_BODY_LIMIT = 1024;
export const USER_AGENT = 'agent-payments-webhooks/1.0 (+https://www.standardwebhooks.com)';

/**
 * How a delivery is signed, by endpoint kind: `standard` (Standard Webhooks, seller endpoints) or
 * `merchant` (ACP order events: `Merchant-Signature: t=<unix>,v1=<hex HMAC-SHA256(t + "." + body)>`).
 */
export type SignatureScheme = 'standard' | 'merchant';

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

class RefusedAddress extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
}

/**
 * dns.lookup that refuses the host when any of its addresses is not allowed in this mode, and
 * hands the connection only the addresses it checked (no second resolution to rebind).
 */
function guardedLookup(mode: Mode): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) {
        return callback(err, '', 4);
      }
      for (const a of addresses) {
        const refusal = addressRefusal(a.address, mode);
        if (refusal) {
          return callback(new RefusedAddress(refusal), '', 4);
        }
      }
      if ((options as { all?: boolean }).all) {
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      }
      callback(null, addresses[0].address, addresses[0].family);
    });
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
  if (err instanceof RefusedAddress) {
    return `address refused: ${err.message}`;
  }
  return err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message;
}

/**
 * One HTTP POST of a signed event. Never throws: every outcome becomes a SendResult (an attempt
 * row). Redirects are not followed (a 3xx is a failure), so a receiver cannot bounce us to an
 * address the policy refuses.
 */
@Injectable()
export class WebhookSender {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

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
      // Node connects to IP literals without a lookup, so the guard runs here for them.
      const literal = hostOf(url);
      const literalRefusal = isIP(literal) ? addressRefusal(literal, this.config.mode) : null;
      if (literalRefusal) {
        return fail(new RefusedAddress(literalRefusal));
      }
      if (this.config.mode === 'live' && url.protocol !== 'https:') {
        return fail(new Error('url must use https in live mode'));
      }
      const body = Buffer.from(msg.body, 'utf8');
      const lib = url.protocol === 'https:' ? https : http;
      const req = lib.request(url, {
        method: 'POST',
        // Wall time, not Clock: receivers compare webhook-timestamp with their own clocks (±5 min).
        headers: { ...signedHeaders(msg, new Date()), 'content-length': String(body.length) },
        lookup: guardedLookup(this.config.mode),
        agent: false,
      });
      timer = setTimeout(() => {
        timedOut = true;
        req.destroy(new Error('timeout'));
      }, timeoutMs);
      req.on('error', fail);
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
          res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_BODY_LIMIT) {
            chunks.push(chunk);
          }
          size += chunk.length;
          if (size >= RESPONSE_BODY_LIMIT) {
            done(); // enough to show; do not download the rest
          }
        });
        res.on('end', done);
        res.on('error', done);
      });
      req.end(body);
    });
  }
}
