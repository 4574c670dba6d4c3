import { Column, Entity, PrimaryColumn } from 'typeorm';

export type WebhookEndpointStatus = 'enabled' | 'disabled';
/**
 * Who registered the endpoint and so how it is signed: `seller` (the workspace's API key,
 * Standard Webhooks) or `acp_order` (an agent platform's merchant protocol key under /acp, ACP
 * order events signed with Merchant-Signature). One delivery pipeline serves both.
 */
export type WebhookEndpointKind = 'seller' | 'acp_order' | 'ucp_order';
// ucp_order: a UCP platform's order webhook URL (docs/ucp.md "Orders"), made by src/ucp/orders
// per merchant key and URL; signed with RFC 9421 by the signer src/ucp registers
// (EndpointKindSigners).
/**
 * Why an endpoint is disabled: by its owner, or by us after a delivery exhausted its retries or
 * its receiver answered 410 Gone.
 */
export type WebhookDisabledReason = 'disabled_by_user' | 'retries_exhausted' | 'gone';

@Entity('webhook_endpoints')
export class WebhookEndpoint {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') kind: WebhookEndpointKind;
  /** acp_order only: the merchant key that registered it (it receives that key's orders). */
  @Column('text', { nullable: true }) protocolKeyId: string | null;
  /** Only events of this seller agent; null = every agent of the workspace (always set for acp_order). */
  @Column('text', { nullable: true }) agentId: string | null;
  @Column('text') url: string;
  @Column('text', { nullable: true }) description: string | null;
  /** Known event types, or ['*']. */
  @Column('text', { array: true }) eventTypes: string[];
  /** Sealed with WebhookSecrets (AES-256-GCM); the plaintext is shown once and never stored. */
  @Column('text') secretCiphertext: string;
  @Column('text', { nullable: true }) previousSecretCiphertext: string | null;
  @Column('timestamptz', { nullable: true }) previousSecretExpiresAt: Date | null;
  @Column('text') status: WebhookEndpointStatus;
  @Column('text', { nullable: true }) disabledReason: WebhookDisabledReason | null;
  @Column('timestamptz', { nullable: true }) disabledAt: Date | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}
