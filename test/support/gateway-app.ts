import request from 'supertest';

import type { GatewaySimulatorOptions } from '../../gateway-sim';
import { AppConfig, Secret } from '../../src/config/app.config';
import { bearer } from '../factories/intent.factory';
import { startApp, TestApp } from './app';
import { startTestGateway, TEST_GATEWAY_KEYS, TestGateway } from './gateway';

/**
 * The service on the gateway rail (RAIL=gateway, MODE=test) against the gateway simulator over
 * real HTTP, with the simulator's webhooks pointed at the service's /v1/webhooks/gateway.
 */
export interface GatewayApp {
  t: TestApp;
  gw: TestGateway;
  close(): Promise<void>;
}

export function gatewayConfig(apiUrl: string, timeoutMs = 2000): AppConfig['gateway'] {
  return {
    apiUrl,
    checkoutUrl: apiUrl,
    keyId: TEST_GATEWAY_KEYS.keyId,
    keySecret: new Secret(TEST_GATEWAY_KEYS.keySecret),
    webhookSecret: new Secret(TEST_GATEWAY_KEYS.webhookSecret),
    timeoutMs,
  };
}

export async function startGatewayApp(
  opts: {
    overrides?: Partial<AppConfig>;
    sim?: Partial<GatewaySimulatorOptions>;
    timeoutMs?: number;
    webhooks?: boolean;
  } = {},
): Promise<GatewayApp> {
  const gw = await startTestGateway(opts.sim);
  const t = await startApp({
    mode: 'test',
    rail: 'gateway',
    gateway: gatewayConfig(gw.sim.url, opts.timeoutMs),
    railReconcileAfterMs: 60_000,
    ...opts.overrides,
  });
  if (opts.webhooks !== false) {
    gw.sim.setWebhookUrl(`${t.url}/v1/webhooks/gateway`);
  }
  return {
    t,
    gw,
    close: async () => {
      await t.close();
      await gw.close();
    },
  };
}

/** A free-form quote from the seller to the buyer; returns its id. */
export async function createQuote(
  t: TestApp,
  ws: { seller: { credential: string }; buyer: { id: string } },
  amountPaise: number,
): Promise<string> {
  const res = await request(t.url)
    .post('/v1/pay/quotes')
    .set(bearer(ws.seller.credential))
    .send({
      buyer_agent_id: ws.buyer.id,
      category: 'services.test',
      items: [{ name: 'Gateway item', unit_paise: amountPaise }],
    });
  if (res.status !== 201) {
    throw new Error(`quote create failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res.body.id as string;
}

export async function waitFor(
  what: string,
  fn: () => Promise<boolean> | boolean,
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
