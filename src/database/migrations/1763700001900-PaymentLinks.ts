import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payment links (docs/gateway.md "Payment links"): a seller asks for a gateway payment link for a quote,
 * and paying it settles the quote exactly like the hosted page. A link is a hosted checkout of
 * channel `link` (src/public-pay/payment-links.service.ts), so it settles through the same code
 * (PublicPayService.settleCaptured, source kind `hosted`, person-on-page authority).
 * - hosted_checkouts.channel: `page` (the hosted payment page, every existing row) or `link`.
 * - gateway_link_id / link_url: the gateway's payment link and its short_url (links only).
 * - At most one live checkout per quote and channel (was: per quote), so a live payment link and a
 *   live page checkout may coexist; both settle under the quote's lock, so only one can pay it.
 * - A gateway link is recorded once (unique).
 */
export class PaymentLinks1763700001900 implements MigrationInterface {
  name = 'PaymentLinks1763700001900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE hosted_checkouts
        ADD COLUMN channel text NOT NULL DEFAULT 'page'
          CONSTRAINT hosted_checkouts_channel_chk CHECK (channel IN ('page', 'link')),
        ADD COLUMN gateway_link_id text,
        ADD COLUMN link_url text,
        ADD CONSTRAINT hosted_checkouts_link_chk
          CHECK (channel = 'link' OR (gateway_link_id IS NULL AND link_url IS NULL));
      DROP INDEX hosted_checkouts_quote_id_live_key;
      CREATE UNIQUE INDEX hosted_checkouts_quote_id_live_key ON hosted_checkouts (quote_id, channel)
        WHERE status IN ('created', 'processing');
      CREATE UNIQUE INDEX hosted_checkouts_gateway_link_id_key ON hosted_checkouts (gateway_link_id)
        WHERE gateway_link_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX hosted_checkouts_gateway_link_id_key;
      DELETE FROM hosted_checkouts WHERE channel = 'link';
      DROP INDEX hosted_checkouts_quote_id_live_key;
      CREATE UNIQUE INDEX hosted_checkouts_quote_id_live_key ON hosted_checkouts (quote_id)
        WHERE status IN ('created', 'processing');
      ALTER TABLE hosted_checkouts
        DROP CONSTRAINT hosted_checkouts_link_chk,
        DROP COLUMN link_url,
        DROP COLUMN gateway_link_id,
        DROP COLUMN channel;
    `);
  }
}
