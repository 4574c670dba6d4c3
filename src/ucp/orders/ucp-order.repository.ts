import { Injectable } from '@nestjs/common';

import { sql, SqlFragment, SqlOperand } from '../../database/fragment';
import { Tx } from '../../database/tx';

/** A stored UCP signing key (ucp_signing_keys). */
export interface UcpSigningKeyRow {
  kid: string;
  public_jwk: Record<string, string> & { kty: string };
  private_key_sealed: string | null;
}

/** Serialises first-boot key generation across instances ("UCPK"). */
const BOOTSTRAP_LOCK = 0x5543504b;

/**
 * SQL on ucp_order_webhooks for the webhook fan-out (docs/architecture.md "Table owners"): true
 * when the checkout session sends its UCP order events to this endpoint.
 */
export const ucpOrderWebhookParts = {
  boundTo: (endpointId: SqlOperand, checkoutSessionId: SqlOperand): SqlFragment =>
    sql`EXISTS (SELECT 1 FROM ucp_order_webhooks uow WHERE uow.endpoint_id = ${endpointId} AND uow.checkout_session_id = ${checkoutSessionId})`,
};

/** The owner of ucp_order_webhooks and ucp_signing_keys (docs/ucp.md "Orders"). */
@Injectable()
export class UcpOrderRepository {
  constructor(private readonly tx: Tx) {}

  /** The session's order events go to this endpoint (the newest binding wins). */
  async bind(row: {
    checkoutSessionId: string;
    endpointId: string;
    profileUrl: string;
    webhookUrl: string;
    now: Date;
  }): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO ucp_order_webhooks (checkout_session_id, endpoint_id, profile_url, webhook_url, created_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (checkout_session_id) DO UPDATE
         SET endpoint_id = EXCLUDED.endpoint_id, profile_url = EXCLUDED.profile_url,
             webhook_url = EXCLUDED.webhook_url`,
      [row.checkoutSessionId, row.endpointId, row.profileUrl, row.webhookUrl, row.now],
    );
  }

  async lockBootstrap(): Promise<void> {
    await this.tx.manager.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
  }

  /** Newest key we hold the private half of and have not retired. */
  async newestUsableKey(): Promise<UcpSigningKeyRow | null> {
    const rows: UcpSigningKeyRow[] = await this.tx.manager.query(
      `SELECT kid, public_jwk, private_key_sealed FROM ucp_signing_keys
        WHERE retired_at IS NULL AND private_key_sealed IS NOT NULL
        ORDER BY created_at DESC, kid DESC LIMIT 1`,
    );
    return rows[0] ?? null;
  }

  /** Keys not retired: the ones platforms may see signatures from (signing_keys). */
  async publishedKeys(): Promise<UcpSigningKeyRow[]> {
    return this.tx.manager.query(
      `SELECT kid, public_jwk, private_key_sealed FROM ucp_signing_keys
        WHERE retired_at IS NULL ORDER BY created_at DESC, kid DESC`,
    );
  }

  async insertKeyIfAbsent(row: {
    kid: string;
    publicJwk: Record<string, string>;
    privateKeySealed: string | null;
    now: Date;
  }): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO ucp_signing_keys (kid, public_jwk, private_key_sealed, created_at)
       VALUES ($1, $2, $3, $4) ON CONFLICT (kid) DO NOTHING`,
      [row.kid, JSON.stringify(row.publicJwk), row.privateKeySealed, row.now],
    );
  }
}
