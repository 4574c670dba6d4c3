import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

import {
  GatewaySimulator,
  GatewaySimulatorOptions,
  startGatewaySimulator,
} from '../../gateway-sim';
import { GatewayClient } from '../../src/rails/gateway/gateway-client';
import type { GatewayWebhookEvent } from '../../src/rails/gateway/gateway-client.types';

/**
 * Test helpers for the gateway rail: the simulator in-process on a free port with a client for
 * it, and a local webhook receiver that records raw bodies and answers what the test says.
 *
 *   const gw = await startTestGateway();              // gw.sim, gw.client, gw.keys
 *   const hooks = await startWebhookReceiver();
 *   gw.sim.setWebhookUrl(hooks.url);
 */
export const TEST_GATEWAY_KEYS = {
  keyId: 'rzp_test_Gw1Sim2Key3Id4',
  keySecret: 'gateway-test-key-secret',
  webhookSecret: 'gateway-test-webhook-secret',
} as const;

export interface TestGateway {
  sim: GatewaySimulator;
  client: GatewayClient;
  keys: typeof TEST_GATEWAY_KEYS;
  close(): Promise<void>;
}

export async function startTestGateway(
  options: Partial<GatewaySimulatorOptions> = {},
  clientTimeoutMs = 5000,
): Promise<TestGateway> {
  const sim = await startGatewaySimulator({ ...TEST_GATEWAY_KEYS, webhookRetryMs: 20, ...options });
  const client = new GatewayClient({
    apiUrl: sim.url,
    keyId: TEST_GATEWAY_KEYS.keyId,
    keySecret: TEST_GATEWAY_KEYS.keySecret,
    timeoutMs: clientTimeoutMs,
  });
  return { sim, client, keys: TEST_GATEWAY_KEYS, close: () => sim.close() };
}

export interface ReceivedWebhook {
  raw: string;
  signature: string | undefined;
  eventId: string | undefined;
  body: GatewayWebhookEvent;
  /** The status this receiver answered. */
  status: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /**
   * Decide the answer per delivery (n = 1 for the first delivery after this call); 0 means
   * never answer (the simulator's timeout then counts it as failed).
   */
  respondWith(fn: (n: number, hook: Omit<ReceivedWebhook, 'status'>) => number): void;
  waitFor(pred: (r: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let decide: (n: number, hook: Omit<ReceivedWebhook, 'status'>) => number = () => 200;
  let count = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const hook = {
        raw,
        signature: req.headers['x-gateway-signature'] as string | undefined,
        eventId: req.headers['x-gateway-event-id'] as string | undefined,
        body: JSON.parse(raw) as GatewayWebhookEvent,
      };
      const status = decide(++count, hook);
      received.push({ ...hook, status });
      if (status === 0) {
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    respondWith: (fn) => {
      decide = fn;
      count = 0;
    },
    waitFor: async (pred, timeoutMs = 5000) => {
      const until = Date.now() + timeoutMs;
      while (!pred(received)) {
        if (Date.now() > until) {
          throw new Error(
            `webhooks not as expected after ${timeoutMs} ms: ${received.map((r) => r.body.event).join(', ')}`,
          );
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
