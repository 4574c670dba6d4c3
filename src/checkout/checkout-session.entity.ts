import { Column, Entity, PrimaryColumn } from 'typeorm';

import { lowerCaseCurrency } from '../database/currency.transformer';

export type CheckoutStatus =
  | 'not_ready_for_payment'
  | 'ready_for_payment'
  | 'pending_approval'
  | 'complete_in_progress'
  | 'completed'
  | 'canceled'
  | 'expired';

/** Snapshot of a priced line: the published offer at the time of create/update. */
export interface StoredLineItem {
  id: string;
  sku: string;
  name: string;
  category: string;
  unit_paise: number;
  quantity: number;
  /** Price the agent sent, when it differed from the published one (price_change warning). */
  hinted_unit_amount?: number;
}

/** ACP `Address` as stored (checked as the closed AddressDto). */
export interface StoredAddress {
  name: string;
  line_one: string;
  line_two?: string;
  city: string;
  state: string;
  country: string;
  postal_code: string;
  company?: string;
}

/**
 * ACP `FulfillmentDetails` as stored (docs/acp.md "Accepted extensions", ACP PR #200): what create,
 * update and complete sent, each field sent replacing the one held. Personal data: erased with the
 * buyer contact (docs/personal-data.md).
 */
export interface StoredFulfillmentDetails {
  name?: string;
  phone_number?: string;
  email?: string;
  address?: StoredAddress;
}

/** A stored session message (e.g. payment_declined); ACP MessageInfo/Warning/Error shape. */
export type StoredMessage = Record<string, unknown>;

@Entity('checkout_sessions')
export class CheckoutSession {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') sellerAgentId: string;
  @Column('text') protocolKeyId: string;
  @Column('text') status: CheckoutStatus;
  /** Wire spelling ('inr'); stored upper case. */
  @Column('text', { transformer: lowerCaseCurrency }) currency: string;
  @Column('jsonb') lineItems: StoredLineItem[];
  @Column('jsonb', { nullable: true }) buyer: Record<string, unknown> | null;
  @Column('jsonb', { nullable: true }) fulfillmentDetails: StoredFulfillmentDetails | null;
  @Column('jsonb') messages: StoredMessage[];
  @Column('text', { nullable: true }) intentId: string | null;
  @Column('text', { nullable: true }) orderId: string | null;
  @Column('jsonb', { nullable: true }) intentTrace: Record<string, unknown> | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
  @Column('timestamptz') expiresAt: Date;
  @Column('timestamptz', { nullable: true }) completedAt: Date | null;
  @Column('timestamptz', { nullable: true }) canceledAt: Date | null;
}
