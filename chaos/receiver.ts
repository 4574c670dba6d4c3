/**
 * The seller's webhook receiver of the chaos run: records every delivery of our signed outbound
 * webhooks (docs/webhooks.md) with its raw body and headers, answers 200. Signatures are checked
 * when the invariants are (the endpoint's secret is known only after the sandbox set-up).
 */
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Webhook } from 'standardwebhooks';

import type { ReceivedRow } from './invariants';

interface Raw {
  body: string;
  headers: Record<string, string>;
}

export class WebhookReceiver {
  private readonly raw: Raw[] = [];
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) {
          if (typeof v === 'string') {
            headers[k] = v;
          }
        }
        this.raw.push({ body: Buffer.concat(chunks).toString('utf8'), headers });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  }

  get count(): number {
    return this.raw.length;
  }

  /** Every delivery, its signature checked with the endpoint's secret (timestamps not: they may be retries of long ago). */
  rows(secret: string): ReceivedRow[] {
    const wh = new Webhook(secret);
    return this.raw.map((r) => {
      let event: { id?: string; type?: string; data?: { intent_id?: string } } = {};
      let ok = true;
      try {
        event = JSON.parse(r.body) as typeof event;
        const sig = wh.sign(
          r.headers['webhook-id'] ?? '',
          new Date(Number(r.headers['webhook-timestamp']) * 1000),
          r.body,
        );
        ok = (r.headers['webhook-signature'] ?? '').split(' ').includes(sig);
      } catch {
        ok = false;
      }
      return {
        id: event.id ?? r.headers['webhook-id'] ?? '',
        type: event.type ?? '',
        intent_id: event.data?.intent_id ?? null,
        signature_ok: ok,
      };
    });
  }

  async close(): Promise<void> {
    const s = this.server;
    if (s) {
      await new Promise<void>((r) => {
        s.close(() => r());
        s.closeAllConnections();
      });
    }
  }
}
