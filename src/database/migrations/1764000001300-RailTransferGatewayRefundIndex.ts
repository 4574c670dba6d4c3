import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The settlement reconciler finds our credit for each refund line of a gateway settlement report by
 * the gateway's refund id (`gatewayTransferSql('refund')`, src/payments/rail-transfer.repository.ts),
 * as it finds our debit for a payment line by `gateway_payment_id`
 * (rail_transfers_gateway_payment_id_key). Without an index each refund line read the whole table:
 * a report's cost grew with lines × transfers. Partial like its twin:
 * only succeeded credits carry the id the lookup asks for. Not unique: a refund id credited twice
 * would be a bug to find, not a reason for a migration to fail on existing rows.
 */
export class RailTransferGatewayRefundIndex1764000001300 implements MigrationInterface {
  name = 'RailTransferGatewayRefundIndex1764000001300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX rail_transfers_gateway_refund_id_idx ON rail_transfers (gateway_refund_id)
        WHERE gateway_refund_id IS NOT NULL AND direction = 'credit' AND status = 'succeeded'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX rail_transfers_gateway_refund_id_idx`);
  }
}
