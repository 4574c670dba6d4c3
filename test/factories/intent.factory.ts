import request from 'supertest';

import type { TestApp } from '../support/app';

export const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });

/**
 * A payment through the real HTTP surface: the seller quotes `amountPaise` (one item) to the
 * buyer, the buyer pays it under `mandateId`. Returns the pay response body.
 */
export async function payFreeFormQuote(
  t: TestApp,
  p: {
    seller: { credential: string };
    buyer: { id: string; credential: string };
    mandateId: string;
    amountPaise: number;
    name?: string;
  },
): Promise<{
  quote: Record<string, unknown>;
  intent: { id: string; status: string; receipt_id: string | null; approval_id: string | null };
}> {
  const created = await request(t.url)
    .post('/v1/pay/quotes')
    .set(bearer(p.seller.credential))
    .send({
      buyer_agent_id: p.buyer.id,
      category: 'services.test',
      items: [{ name: p.name ?? 'Test item', unit_paise: p.amountPaise }],
    });
  if (created.status !== 201) {
    throw new Error(`quote create failed: ${created.status} ${JSON.stringify(created.body)}`);
  }
  const paid = await request(t.url)
    .post(`/v1/pay/quotes/${created.body.id as string}/pay`)
    .set(bearer(p.buyer.credential))
    .send({ mandate_id: p.mandateId });
  if (paid.status !== 200) {
    throw new Error(`quote pay failed: ${paid.status} ${JSON.stringify(paid.body)}`);
  }
  return paid.body as never;
}
