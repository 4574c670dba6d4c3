import { randomUUID } from 'node:crypto';

import type { NestExpressApplication } from '@nestjs/platform-express';

import { AccountsService } from '../src/accounts/accounts.service';
import type { AgentPrincipal } from '../src/common/auth/principal';
import { randomToken } from '../src/common/ids';
import { MandatesService } from '../src/mandates/mandates.service';
import { ProtocolKeysService } from '../src/protocol-keys/protocol-keys.service';
import { Http, mapLimit } from './http';
import type { PoolItem } from './protocol';

/** ₹450: under the ₹2,000 approval threshold, and not ending in 51–53 (the sandbox rail's failure triggers). */
export const TEA = {
  sku: 'sku_tea_1kg',
  name: 'Assam tea 1 kg',
  unit_paise: 45_000,
  category: 'food.tea',
};
export const CATEGORY = 'food.tea';
/** Other listed sellers, so the seller search has a full page (limit 20) to assemble. */
const OTHER_SELLERS = 40;

export interface Buyer {
  id: string;
  credential: string;
  buyerKey: string;
  mandateId: string;
}

export interface World {
  workspaceId: string;
  /** The workspace's API key (webhook endpoints). */
  apiKey: string;
  personId: string;
  seller: { id: string; credential: string };
  merchantKey: string;
  /** More merchant keys of the seller, one per virtual agent (bench/production.ts); unset elsewhere. */
  merchantKeys?: string[];
  buyers: Buyer[];
  /** Sellers (the main one included) listed under CATEGORY. */
  sellersInCategory: number;
}

const ACTOR = { type: 'system' as const, id: 'bench' };

/**
 * One workspace like test/support/seed.ts builds: a person, a seller with a merchant key and
 * published offers, buyers each with a buyer key and an active standing mandate (created as the
 * buyer agent, authorised as the person, like SandboxService.ensureMandate), plus other listed sellers.
 */
export async function seedWorld(
  app: NestExpressApplication,
  http: Http,
  buyers: number,
): Promise<World> {
  const accounts = app.get(AccountsService);
  const keys = app.get(ProtocolKeysService);
  const mandates = app.get(MandatesService);
  const { workspace, person, apiKey } = await accounts.signUp({
    workspaceName: 'Bench workspace',
    email: `bench-${randomToken(8).toLowerCase()}@example.test`,
    name: 'Bench Person',
    password: `pw-${randomToken(16)}`,
  });
  const actor = { type: 'person' as const, id: person.id };
  const seller = await accounts.createAgent(
    workspace.id,
    { name: 'Bench tea seller', role: 'seller' },
    actor,
  );
  const merchant = await keys.create(workspace.id, { role: 'merchant', agentId: seller.id }, actor);
  await http.expect(200, 'PUT', `/v1/pay/agents/${seller.id}/listing`, {
    bearer: seller.credential!,
    body: {
      listed: true,
      offers: [
        TEA,
        {
          sku: 'sku_tea_hamper',
          name: 'Darjeeling tea hamper',
          unit_paise: 350_000,
          category: 'food.tea',
        },
        {
          sku: 'sku_coffee_250g',
          name: 'Coorg coffee 250 g',
          unit_paise: 32_000,
          category: 'food.coffee',
        },
      ],
    },
  });

  let sellersInCategory = 1;
  await mapLimit(
    Array.from({ length: OTHER_SELLERS }, (_, i) => i),
    4,
    async (i) => {
      const other = await accounts.createAgent(
        workspace.id,
        { name: `Other seller ${i + 1}`, role: 'seller' },
        ACTOR,
      );
      const category = i % 2 === 0 ? 'food.tea' : 'food.coffee';
      sellersInCategory += category === CATEGORY ? 1 : 0;
      await http.expect(200, 'PUT', `/v1/pay/agents/${other.id}/listing`, {
        bearer: other.credential!,
        body: {
          listed: true,
          offers: Array.from({ length: 5 }, (_, j) => ({
            sku: `sku_${i}_${j}`,
            name: `Item ${j + 1} of seller ${i + 1}`,
            unit_paise: 10_000 + 1_000 * j,
            category,
          })),
        },
      });
    },
  );

  const seeded: Buyer[] = [];
  for (let i = 0; i < buyers; i++) {
    const buyer = await accounts.createAgent(
      workspace.id,
      { name: `Bench buyer ${i + 1}`, role: 'buyer' },
      actor,
    );
    const buyerKey = await keys.create(workspace.id, { role: 'buyer', agentId: buyer.id }, actor);
    const principal: AgentPrincipal = {
      kind: 'agent',
      id: buyer.id,
      workspaceId: workspace.id,
      role: 'buyer',
      publicKey: null,
    };
    const mandate = await mandates.create(principal, {
      perPaymentCapPaise: 1_000_000,
      payeeAgentIds: null,
      validUntil: new Date(Date.now() + 90 * 86_400_000).toISOString(),
      rail: 'upi_reserve_pay',
      description: 'Bench mandate',
    });
    await mandates.authorise(workspace.id, mandate.id, person.id);
    seeded.push({
      id: buyer.id,
      credential: buyer.credential!,
      buyerKey: buyerKey.key!,
      mandateId: mandate.id,
    });
  }

  return {
    workspaceId: workspace.id,
    apiKey: apiKey.secret!,
    personId: person.id,
    seller: { id: seller.id, credential: seller.credential! },
    merchantKey: merchant.key!,
    buyers: seeded,
    sellersInCategory,
  };
}

/** The body of POST /acp/checkout_sessions every create scenario sends. */
export const CREATE_BODY = {
  line_items: [{ id: TEA.sku, quantity: 1 }],
  currency: 'inr',
  capabilities: {},
};

export async function createSession(
  http: Http,
  world: World,
  idempotencyKey?: string,
  merchantKey = world.merchantKey,
): Promise<string> {
  const res = await http.request<{ id: string; status: string }>('POST', '/acp/checkout_sessions', {
    bearer: merchantKey,
    acp: true,
    idempotent: idempotencyKey ?? true,
    body: CREATE_BODY,
  });
  if (res.status !== 201 || res.body.status !== 'ready_for_payment') {
    throw new Error(`create session: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res.body.id;
}

export interface MintedPair {
  sessionId: string;
  token: string;
  buyerId: string;
  /** The merchant key that created the session, which completes it too. */
  merchantKey: string;
}

/**
 * The seller's merchant key for the i-th session: round-robin over world.merchantKeys when there
 * are several (bench/production.ts: each stays under the live per-credential rate limit).
 */
export function merchantKeyFor(world: World, i: number): string {
  const keys = world.merchantKeys?.length ? world.merchantKeys : [world.merchantKey];
  return keys[i % keys.length];
}

/**
 * Before the timed phase: N sessions, each with a one-time delegated token of one buyer
 * (round-robin over the buyers), over HTTP as an agent platform would mint them.
 */
export async function mintPairs(
  http: Http,
  world: World,
  n: number,
  concurrency: number,
): Promise<MintedPair[]> {
  const expiresAt = new Date(Date.now() + 3600_000).toISOString();
  return mapLimit(
    Array.from({ length: n }, (_, i) => i),
    concurrency,
    async (i) => {
      const buyer = world.buyers[i % world.buyers.length];
      const merchantKey = merchantKeyFor(world, i);
      const sessionId = await createSession(http, world, undefined, merchantKey);
      const vt = await http.expect<{ id: string }>(
        201,
        'POST',
        '/acp/agentic_commerce/delegate_payment',
        {
          bearer: buyer.buyerKey,
          acp: true,
          idempotent: true,
          body: {
            payment_method: { type: 'svc_mandate', mandate_id: buyer.mandateId },
            allowance: {
              reason: 'one_time',
              max_amount: TEA.unit_paise,
              currency: 'inr',
              checkout_session_id: sessionId,
              merchant_id: world.seller.id,
              expires_at: expiresAt,
            },
            risk_signals: [],
            metadata: {},
          },
        },
      );
      return { sessionId, token: vt.id, buyerId: buyer.id, merchantKey };
    },
  );
}

export function completeItem(pair: MintedPair): PoolItem {
  return {
    path: `/acp/checkout_sessions/${pair.sessionId}/complete`,
    headers: { Authorization: `Bearer ${pair.merchantKey}` },
    body: JSON.stringify({
      payment_data: {
        handler_id: 'svc_upi_mandate',
        instrument: {
          type: 'svc_mandate',
          credential: { type: 'svc_delegated_token', token: pair.token },
        },
      },
    }),
  };
}

export function newKey(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}
