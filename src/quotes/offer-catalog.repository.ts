import { Injectable } from '@nestjs/common';
import { Tx } from '../database/tx';

export interface ListedSeller {
  agentId: string;
  workspaceId: string;
  name: string;
}

export interface PublishedOffer {
  id: string;
  sku: string;
  name: string;
  unitPaise: number;
  category: string;
}

/**
 * Read-only view of what sellers publish (seller_listings + offers, owned by the listings module).
 * Quotes only need "is this seller listed" and "what does this sku cost now", so two narrow
 * queries instead of a dependency on the listings module.
 */
@Injectable()
export class OfferCatalogRepository {
  constructor(private readonly tx: Tx) {}

  /** The seller if it is an enabled seller agent with listed = true; otherwise null. */
  async findListedSeller(agentId: string): Promise<ListedSeller | null> {
    const [row] = await this.tx.manager.query<{ id: string; workspace_id: string; name: string }[]>(
      `SELECT a.id, a.workspace_id, a.name
         FROM seller_listings l JOIN agents a ON a.id = l.agent_id
        WHERE l.agent_id = $1 AND l.listed AND a.disabled_at IS NULL AND a.role IN ('seller', 'both')`,
      [agentId],
    );
    return row ? { agentId: row.id, workspaceId: row.workspace_id, name: row.name } : null;
  }

  /** The seller's active offer with this sku, or null. */
  async findActiveOffer(sellerAgentId: string, sku: string): Promise<PublishedOffer | null> {
    const [row] = await this.tx.manager.query<
      { id: string; sku: string; name: string; unit_paise: string; category: string }[]
    >(
      `SELECT id, sku, name, unit_paise::text, category FROM offers
        WHERE seller_agent_id = $1 AND sku = $2 AND active`,
      [sellerAgentId, sku],
    );
    return row
      ? {
          id: row.id,
          sku: row.sku,
          name: row.name,
          unitPaise: Number(row.unit_paise),
          category: row.category,
        }
      : null;
  }
}
