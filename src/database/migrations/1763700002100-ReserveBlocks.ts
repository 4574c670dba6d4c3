import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reserve Pay on the gateway rail (docs/gateway.md "Reserve Pay"): a `upi_reserve_pay` mandate blocks its
 * cap once on the gateway (one block per mandate); the mandate's payments debit within the block;
 * what is left is released when the mandate is revoked or ends (src/gateway/reserve-blocks.ts).
 * A mandate that already has a recurring token (gateway_mandate_tokens, from before blocks) keeps
 * paying on its token.
 */
export class ReserveBlocks1763700002100 implements MigrationInterface {
  name = 'ReserveBlocks1763700002100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gateway_reserve_blocks (
        mandate_id text PRIMARY KEY REFERENCES mandates(id),
        customer_id text NOT NULL,
        block_id text NOT NULL UNIQUE,
        amount_paise bigint NOT NULL CHECK (amount_paise > 0),
        status text NOT NULL
          CONSTRAINT gateway_reserve_blocks_status_chk CHECK (status IN ('created', 'active', 'released', 'expired')),
        released_paise bigint CHECK (released_paise >= 0 AND released_paise <= amount_paise),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX gateway_reserve_blocks_live_idx ON gateway_reserve_blocks (mandate_id)
        WHERE status IN ('created', 'active');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE gateway_reserve_blocks;`);
  }
}
