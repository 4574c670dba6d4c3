import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../database/bigint.transformer';

export type HostedCheckoutStatus = 'created' | 'processing' | 'paid' | 'failed' | 'expired';

/** Where the person pays: the hosted page (`page`) or a gateway payment link (`link`, docs/gateway.md "Payment links"). */
export type HostedCheckoutChannel = 'page' | 'link';

/** One attempt of the buyer's person to pay a quote on the hosted page (states: hosted-checkout.state.ts). */
@Entity('hosted_checkouts')
export class HostedCheckout {
  @PrimaryColumn('text') id: string;
  @Column('text') quoteId: string;
  @Column('text') channel: HostedCheckoutChannel;
  @Column('text') status: HostedCheckoutStatus;
  /** The quote's total when the checkout started; the server's amount, never the browser's. */
  @Column('bigint', { transformer: paise }) amountPaise: number;
  @Column('text') currency: 'INR';
  @Column('text') rail: string;
  /** The pipeline's intent: settled once paid; declined/failed when the rules or the rail refused. */
  @Column('text', { nullable: true }) intentId: string | null;
  /** Complete calls that ran a payment attempt on this checkout. */
  @Column('int') attempts: number;
  /** Gateway rail: the order opened at the gateway for this checkout (the widget pays it). */
  @Column('text', { nullable: true }) gatewayOrderId: string | null;
  /** Channel `link`: the gateway's payment link (its order is gatewayOrderId) and its short_url. */
  @Column('text', { nullable: true }) gatewayLinkId: string | null;
  @Column('text', { nullable: true }) linkUrl: string | null;
  @Column('text', { nullable: true }) failureCode: string | null;
  @Column('text', { nullable: true }) failureReason: string | null;
  @Column('timestamptz') expiresAt: Date;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
  @Column('timestamptz', { nullable: true }) completedAt: Date | null;
}
