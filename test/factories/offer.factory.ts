import { newId, randomToken } from '../../src/common/ids';
import type { TestApp } from '../support/app';

export interface OfferRow {
  id: string;
  sellerAgentId: string;
  sku: string;
  name: string;
  unitPaise: number;
  category: string;
  active: boolean;
}

/**
 * Publishes an offer for a seller by inserting seller_listings + offers rows (the listing API is
 * another module's); the seller is listed unless `listed: false`.
 */
export async function createOffer(
  t: TestApp,
  sellerAgentId: string,
  over: Partial<Omit<OfferRow, 'id' | 'sellerAgentId'>> & { listed?: boolean } = {},
): Promise<OfferRow> {
  const now = t.clock.now();
  const offer: OfferRow = {
    id: newId('off'),
    sellerAgentId,
    sku: over.sku ?? `sku-${randomToken(8).toLowerCase()}`,
    name: over.name ?? 'Masala chai, 250 g',
    unitPaise: over.unitPaise ?? 45_000,
    category: over.category ?? 'food.beverages',
    active: over.active ?? true,
  };
  await t.db.query(
    `INSERT INTO seller_listings (agent_id, listed, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (agent_id) DO UPDATE SET listed = EXCLUDED.listed, updated_at = EXCLUDED.updated_at`,
    [sellerAgentId, over.listed ?? true, now],
  );
  await t.db.query(
    `INSERT INTO offers (id, seller_agent_id, sku, name, unit_paise, category, active, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
    [
      offer.id,
      sellerAgentId,
      offer.sku,
      offer.name,
      offer.unitPaise,
      offer.category,
      offer.active,
      now,
    ],
  );
  return offer;
}
