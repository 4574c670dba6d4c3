import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';

import { accountParts } from '../accounts/accounts.repository';
import { agentParts } from '../accounts/agent.repository';
import type { AgentStatus, PartyState, WorkspaceStatus } from '../accounts/party-lifecycle';
import { newId } from '../common/ids';
import { paiseFromSql } from '../common/money';
import { Cursor } from '../common/pagination';
import { batchColumns, batchInsert } from '../database/batch';
import { col, sql, SqlFragment, SqlOperand, textOf } from '../database/fragment';
import { queryPrepared } from '../database/prepared';
import { Tx } from '../database/tx';
import { Offer } from './entities/offer.entity';
import { SellerListing } from './entities/seller-listing.entity';

export interface OfferInput {
  sku: string;
  name: string;
  unitPaise: number;
  category: string;
}

export interface SellerFilter {
  /** Category or any sub-category (`food` matches `food.tea`). */
  category?: string;
  /** Case-insensitive substring of the seller name, an offer name or an SKU. */
  q?: string;
}

/** A listed, enabled seller agent: who a buyer may ask for a quote. */
export interface ListedSeller {
  agentId: string;
  workspaceId: string;
  name: string;
}

export interface SellerRow {
  id: string;
  name: string;
  createdAt: Date;
}

/** SQL on offers for another owner's statement (see `agentParts` in src/accounts/agent.repository.ts). */
export const offerParts = {
  /**
   * Whether each of these skus' offers is active, as a scalar subquery giving a JSON array of
   * `{sku, active}` (a sku with no offer row is absent): `skus` is a subquery of skus.
   */
  statesOf: (sellerAgentId: SqlOperand, skus: SqlFragment): SqlFragment =>
    sql`(SELECT COALESCE(json_agg(json_build_object('sku', o.sku, 'active', o.active)), '[]'::json)
        FROM offers o WHERE o.seller_agent_id = ${sellerAgentId} AND o.sku IN (${skus}))`,
};

/**
 * Offer rows are never deleted: a withdrawn offer goes inactive, so past sessions and quotes
 * still resolve its name and price. Every query joins the caller's transaction (Tx).
 */
@Injectable()
export class SellerRepository {
  constructor(private readonly tx: Tx) {}

  /** Creates or updates the listing row; the upsert also row-locks it, serialising PUTs of one seller. */
  async upsertListing(agentId: string, listed: boolean, now: Date): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO seller_listings (agent_id, listed, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (agent_id) DO UPDATE SET listed = EXCLUDED.listed, updated_at = EXCLUDED.updated_at`,
      [agentId, listed, now],
    );
  }

  /** Upserts the given offers (reactivating withdrawn ones) and withdraws every other active offer. */
  async replaceOffers(sellerAgentId: string, offers: OfferInput[], now: Date): Promise<void> {
    const m = this.tx.manager;
    if (offers.length > 0) {
      const { sql, params } = batchInsert(
        'offers',
        batchColumns<OfferInput>({
          id: ['text', () => newId('off')],
          seller_agent_id: ['text', () => sellerAgentId],
          sku: ['text', (o) => o.sku],
          name: ['text', (o) => o.name],
          unit_paise: ['bigint', (o) => String(o.unitPaise)],
          category: ['text', (o) => o.category],
          active: ['boolean', () => true],
          created_at: ['timestamptz', () => now],
          updated_at: ['timestamptz', () => now],
        }),
        offers,
        {
          tail: `ON CONFLICT (seller_agent_id, sku) DO UPDATE
           SET name = EXCLUDED.name, unit_paise = EXCLUDED.unit_paise, category = EXCLUDED.category,
               active = true, updated_at = EXCLUDED.updated_at`,
        },
      );
      await m.query(sql, params);
    }
    await m.query(
      `UPDATE offers SET active = false, updated_at = $2
        WHERE seller_agent_id = $1 AND active AND NOT (sku = ANY($3::text[]))`,
      [sellerAgentId, now, offers.map((o) => o.sku)],
    );
  }

  /** The seller if it is an enabled seller agent with listed = true; otherwise null. */
  async findListedSeller(agentId: string): Promise<ListedSeller | null> {
    const [row] = await this.tx.manager.query<{ id: string; workspace_id: string; name: string }[]>(
      `SELECT a.id, a.workspace_id, a.name
         FROM seller_listings l JOIN (${textOf(agentParts.enabled())}) a ON a.id = l.agent_id
        WHERE l.agent_id = $1 AND l.listed AND a.role IN ('seller', 'both')`,
      [agentId],
    );
    return row ? { agentId: row.id, workspaceId: row.workspace_id, name: row.name } : null;
  }

  findListing(agentId: string): Promise<SellerListing | null> {
    return this.tx.manager.findOneBy(SellerListing, { agentId });
  }

  activeOffers(sellerAgentId: string): Promise<Offer[]> {
    return this.tx.manager.find(Offer, {
      where: { sellerAgentId, active: true },
      order: { sku: 'ASC' },
    });
  }

  findActiveOffer(sellerAgentId: string, sku: string): Promise<Offer | null> {
    return this.tx.manager.findOneBy(Offer, { sellerAgentId, sku, active: true });
  }

  /** Offers of a seller by SKU, active or withdrawn (callers tell "never published" from "withdrawn"). */
  /**
   * One statement for a checkout's pricing: the seller agent's name (enabled, of this workspace),
   * its and its workspace's lifecycle states (docs/architecture.md "Party lifecycle": the create
   * asks the gate without another statement) and its offers for these SKUs; null when there is
   * no such agent.
   */
  async sellerWithOffers(
    workspaceId: string,
    agentId: string,
    skus: string[],
  ): Promise<{ name: string; party: PartyState; offers: Offer[] } | null> {
    const rows = (await queryPrepared(
      this.tx.manager,
      `SELECT a.name AS agent_name, a.status AS agent_status,
              ${textOf(accountParts.workspaceStatusOf(col('a.workspace_id')))} AS workspace_status,
              o.id, o.sku, o.name, o.unit_paise::text AS unit_paise, o.category,
              o.active, o.created_at, o.updated_at
         FROM (${textOf(agentParts.enabled())}) a
         LEFT JOIN offers o ON o.seller_agent_id = a.id AND o.sku = ANY($3::text[])
        WHERE a.id = $1 AND a.workspace_id = $2`,
      [agentId, workspaceId, skus],
    )) as {
      agent_name: string;
      agent_status: AgentStatus;
      workspace_status: WorkspaceStatus;
      id: string | null;
      sku: string;
      name: string;
      unit_paise: string;
      category: string;
      active: boolean;
      created_at: Date;
      updated_at: Date;
    }[];
    if (rows.length === 0) {
      return null;
    }
    const offers = rows.flatMap((r) =>
      r.id === null
        ? []
        : [
            Object.assign(new Offer(), {
              id: r.id,
              sellerAgentId: agentId,
              sku: r.sku,
              name: r.name,
              unitPaise: paiseFromSql(r.unit_paise),
              category: r.category,
              active: r.active,
              createdAt: r.created_at,
              updatedAt: r.updated_at,
            }),
          ],
    );
    const party = {
      agentStatus: rows[0].agent_status,
      workspaceStatus: rows[0].workspace_status,
    };
    return { name: rows[0].agent_name, party, offers };
  }

  findOffers(sellerAgentId: string, skus: string[]): Promise<Offer[]> {
    if (skus.length === 0) {
      return Promise.resolve([]);
    }
    return this.tx.manager.findBy(Offer, { sellerAgentId, sku: In(skus) });
  }

  /**
   * Listed, enabled sellers newest first. Without filters every listed seller appears (even with no
   * offers); with filters a seller appears when one of its active offers matches, or (q without a
   * category) when its name matches.
   */
  async searchSellers(
    filter: SellerFilter,
    cursor: Cursor | null,
    limit: number,
  ): Promise<SellerRow[]> {
    const params: unknown[] = [];
    const p = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const where = [`l.listed`, `a.role IN ('seller', 'both')`];
    if (cursor) {
      where.push(`(a.created_at, a.id) < (${p(cursor.createdAt)}::timestamptz, ${p(cursor.id)})`);
    }
    if (filter.category !== undefined || filter.q !== undefined) {
      const offerMatch = `EXISTS (SELECT 1 FROM offers o WHERE ${this.offerConditions('o', 'a', filter, p)})`;
      where.push(
        filter.q !== undefined && filter.category === undefined
          ? `(${offerMatch} OR strpos(lower(a.name), lower(${p(filter.q)})) > 0)`
          : offerMatch,
      );
    }
    const rows = await this.tx.manager.query<{ id: string; name: string; created_at: Date }[]>(
      `SELECT a.id, a.name, a.created_at FROM (${textOf(agentParts.enabled())}) a
         JOIN seller_listings l ON l.agent_id = a.id
        WHERE ${where.join(' AND ')}
        ORDER BY a.created_at DESC, a.id DESC LIMIT ${p(limit)}`,
      params,
    );
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at }));
  }

  /** The active offers of these sellers that match the filter, by SKU. */
  async matchingOffers(sellerIds: string[], filter: SellerFilter): Promise<Offer[]> {
    if (sellerIds.length === 0) {
      return [];
    }
    const params: unknown[] = [];
    const p = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const rows = await this.tx.manager.query<
      {
        id: string;
        seller_agent_id: string;
        sku: string;
        name: string;
        unit_paise: string;
        category: string;
      }[]
    >(
      `SELECT o.id, o.seller_agent_id, o.sku, o.name, o.unit_paise::text, o.category
         FROM offers o JOIN (${textOf(agentParts.enabled())}) a ON a.id = o.seller_agent_id
        WHERE o.seller_agent_id = ANY(${p(sellerIds)}::text[]) AND ${this.offerConditions('o', 'a', filter, p)}
        ORDER BY o.sku`,
      params,
    );
    return rows.map((r) =>
      Object.assign(new Offer(), {
        id: r.id,
        sellerAgentId: r.seller_agent_id,
        sku: r.sku,
        name: r.name,
        unitPaise: paiseFromSql(r.unit_paise),
        category: r.category,
        active: true,
      }),
    );
  }

  /**
   * Offer-level filter. Category prefix matching compares whole path segments without LIKE, since
   * `_` is legal in categories and a LIKE wildcard; q uses strpos for the same reason.
   */
  private offerConditions(
    o: string,
    a: string,
    filter: SellerFilter,
    p: (v: unknown) => string,
  ): string {
    const conds = [`${o}.seller_agent_id = ${a}.id`, `${o}.active`];
    if (filter.category !== undefined) {
      const c = p(filter.category);
      conds.push(`(${o}.category = ${c} OR left(${o}.category, length(${c}) + 1) = ${c} || '.')`);
    }
    if (filter.q !== undefined) {
      const q = p(filter.q);
      conds.push(
        `(strpos(lower(${a}.name), lower(${q})) > 0 OR strpos(lower(${o}.name), lower(${q})) > 0 OR strpos(lower(${o}.sku), lower(${q})) > 0)`,
      );
    }
    return conds.join(' AND ');
  }
}
