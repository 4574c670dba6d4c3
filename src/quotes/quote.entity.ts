import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../database/bigint.transformer';

/** Stored statuses; `expired` is derived at read time from expires_at (see quote.state.ts). */
export type StoredQuoteStatus = 'open' | 'processing' | 'pending_approval' | 'paid' | 'canceled';
export type QuoteOrigin = 'offer' | 'seller';

/** One priced line as quoted; amounts are fixed when the quote is made. */
export interface QuoteLineItem {
  name: string;
  quantity: number;
  unit_paise: number;
  amount_paise: number;
  /** Only on quotes made from a published offer. */
  sku?: string;
}

/** A price addressed to one buyer agent, from a published offer or a seller's own item list. */
@Entity('quotes')
export class Quote {
  @PrimaryColumn('text') id: string;
  @Column('text') sellerWorkspaceId: string;
  @Column('text') sellerAgentId: string;
  /** The seller agent's name when the quote was made: a quote is a document and does not drift. */
  @Column('text') sellerName: string;
  @Column('text') buyerWorkspaceId: string;
  @Column('text') buyerAgentId: string;
  @Column('text') origin: QuoteOrigin;
  @Column('text', { nullable: true }) offerId: string | null;
  @Column('text') category: string;
  @Column('jsonb') lineItems: QuoteLineItem[];
  @Column('bigint', { transformer: paise }) amountPaise: number;
  @Column('text') currency: 'INR';
  @Column('text') status: StoredQuoteStatus;
  @Column('text', { nullable: true }) intentId: string | null;
  @Column('timestamptz') expiresAt: Date;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
  @Column('timestamptz', { nullable: true }) paidAt: Date | null;
  @Column('timestamptz', { nullable: true }) canceledAt: Date | null;
}
