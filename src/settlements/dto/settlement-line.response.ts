import { ApiProperty } from '@nestjs/swagger';

export class SettlementLineResponse {
  @ApiProperty({ example: 'stl_…' }) id: string;
  @ApiProperty({ enum: ['settlement_line'] }) object: 'settlement_line';
  @ApiProperty({ enum: ['payment', 'refund'] }) kind: string;
  @ApiProperty({ description: "The gateway's payment or refund id", example: 'pay_…' })
  gateway_entity_id: string;
  @ApiProperty({ nullable: true, type: String, example: 'pi_…' }) intent_id: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'rf_…' }) refund_id: string | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Amount in the settlement report (null while missing)',
  })
  amount_paise: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'The amount we moved' })
  expected_amount_paise: number | null;
  @ApiProperty({ description: "The gateway's fee, excluding tax" }) fee_paise: number;
  @ApiProperty({ description: 'Tax on the fee' }) tax_paise: number;
  @ApiProperty({ description: 'Paid out to us: amount − fee − tax for a payment, else 0' })
  credit_paise: number;
  @ApiProperty({ description: 'Taken from the payout: the refund amount for a refund, else 0' })
  debit_paise: number;
  @ApiProperty({ nullable: true, type: String, example: 'setl_…' })
  settlement_id: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Bank reference of the payout' })
  utr: string | null;
  @ApiProperty({ nullable: true, type: String }) settled_at: string | null;
  @ApiProperty({
    enum: ['amount', 'missing'],
    nullable: true,
    type: String,
    description:
      'null: the report agrees with our books; amount: the report has another amount; missing: no report carries this payment or refund yet, past the grace period',
  })
  mismatch: string | null;
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
}
