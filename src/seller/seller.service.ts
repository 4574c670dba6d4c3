import { Injectable } from '@nestjs/common';

import { AccountsService } from '../accounts/accounts.service';
import { canSell } from '../accounts/entities/agent.entity';
import type { PartyState } from '../accounts/party-lifecycle';
import { AuditLog } from '../common/audit';
import type { AgentPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { decodeCursor, encodeCursor, Page } from '../common/pagination';
import { Tx } from '../database/tx';
import { ListingResponse, OfferView, SellerView } from './dto/listing.response';
import { PutListingDto } from './dto/put-listing.dto';
import { Offer } from './entities/offer.entity';
import { sellerErrors } from './seller.errors';
import { ListedSeller, SellerFilter, SellerRepository } from './seller.repository';

export interface SellerSearch extends SellerFilter {
  limit?: number;
  startingAfter?: string;
}

export function toOfferView(o: Offer): OfferView {
  return { sku: o.sku, name: o.name, unit_paise: o.unitPaise, category: o.category };
}

/** Seller listings (docs/seller-surface.md "Seller surface"): publishing, the seller directory, offer lookup. */
@Injectable()
export class SellerService {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly accounts: AccountsService,
    private readonly repo: SellerRepository,
  ) {}

  /** PUT semantics: the body is the whole listing; offers left out are withdrawn, not deleted. */
  async putListing(
    caller: AgentPrincipal,
    agentId: string,
    body: PutListingDto,
  ): Promise<ListingResponse> {
    if (agentId !== caller.id) {
      // Another agent of the caller's workspace exists (403); anything else is not ours to reveal (404).
      await this.accounts.getAgent(caller.workspaceId, agentId);
      throw sellerErrors.notYourListing();
    }
    if (!canSell(caller.role)) {
      throw sellerErrors.notASeller();
    }
    const seen = new Set<string>();
    body.offers.forEach((o, i) => {
      if (seen.has(o.sku)) {
        throw sellerErrors.duplicateSku(i, o.sku);
      }
      seen.add(o.sku);
    });
    return this.tx.run(async () => {
      const now = this.clock.now();
      await this.repo.upsertListing(agentId, body.listed, now);
      await this.repo.replaceOffers(
        agentId,
        body.offers.map((o) => ({
          sku: o.sku,
          name: o.name,
          unitPaise: o.unit_paise,
          category: o.category,
        })),
        now,
      );
      await this.audit.record(
        caller.workspaceId,
        { type: 'agent', id: caller.id },
        'listing.updated',
        agentId,
        {
          listed: body.listed,
          offers: body.offers.length,
        },
      );
      return this.listingView(caller.workspaceId, agentId);
    });
  }

  async listingView(workspaceId: string, agentId: string): Promise<ListingResponse> {
    const agent = await this.accounts.getAgent(workspaceId, agentId);
    const listing = await this.repo.findListing(agentId);
    const offers = await this.repo.activeOffers(agentId);
    return {
      object: 'listing',
      agent_id: agent.id,
      seller_name: agent.name,
      listed: listing?.listed ?? false,
      offers: offers.map(toOfferView),
      updated_at: (listing?.updatedAt ?? agent.createdAt).toISOString(),
    };
  }

  /** The seller directory (GET /v1/pay/sellers, MCP find_seller): listed sellers, newest first. */
  async searchSellers(search: SellerSearch): Promise<Page<SellerView>> {
    const limit = search.limit ?? 20;
    const filter: SellerFilter = {
      category: search.category,
      q: search.q !== undefined && search.q.trim() !== '' ? search.q.trim() : undefined,
    };
    const rows = await this.repo.searchSellers(
      filter,
      decodeCursor(search.startingAfter),
      limit + 1,
    );
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const offers = await this.repo.matchingOffers(
      page.map((r) => r.id),
      filter,
    );
    const last = page[page.length - 1];
    return {
      object: 'list',
      data: page.map((r) => ({
        agent_id: r.id,
        name: r.name,
        offers: offers.filter((o) => o.sellerAgentId === r.id).map(toOfferView),
      })),
      has_more: hasMore,
      next_cursor: hasMore && last ? encodeCursor(last) : null,
    };
  }

  /** The seller if it is listed and an enabled seller agent (quotes from offers ask it); else null. */
  findListedSeller(agentId: string): Promise<ListedSeller | null> {
    return this.repo.findListedSeller(agentId);
  }

  /** The published, active offer for this SKU, or null. Checkout and quotes price from it. */
  findActiveOffer(sellerAgentId: string, sku: string): Promise<Offer | null> {
    return this.repo.findActiveOffer(sellerAgentId, sku);
  }

  /** Offers by SKU, including withdrawn ones (active = false); SKUs never published are absent. */
  /**
   * The seller agent's name, its lifecycle state (with its workspace's) and its offers for these
   * SKUs, one statement; null: no such agent.
   */
  sellerWithOffers(
    workspaceId: string,
    agentId: string,
    skus: string[],
  ): Promise<{ name: string; party: PartyState; offers: Offer[] } | null> {
    return this.repo.sellerWithOffers(workspaceId, agentId, skus);
  }

  findOffers(sellerAgentId: string, skus: string[]): Promise<Offer[]> {
    return this.repo.findOffers(sellerAgentId, skus);
  }
}
