import { ApiProperty } from '@nestjs/swagger';

export class RefundResponse {
  @ApiProperty({ example: 'rf_…' }) id: string;
  @ApiProperty({ enum: ['refund'] }) object: 'refund';
  @ApiProperty() intent_id: string;
  @ApiProperty({
    enum: ['pending_approval', 'processing', 'succeeded', 'denied', 'expired', 'failed'],
    description:
      'pending_approval → processing (a person approved; the rail is paying it out) → succeeded | failed; pending_approval → denied | expired',
  })
  status: string;
  @ApiProperty() amount_paise: number;
  @ApiProperty({ enum: ['INR'] }) currency: string;
  @ApiProperty({ nullable: true, type: String }) reason: string | null;
  @ApiProperty() seller_agent_id: string;
  @ApiProperty() buyer_agent_id: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The person approval (seller workspace) this refund waits for',
  })
  approval_id: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: "The rail's reference of the credit (on the gateway rail: its refund id, rfnd_…)",
  })
  rail_reference: string | null;
  @ApiProperty({ nullable: true, type: String }) failure_code: string | null;
  @ApiProperty({ nullable: true, type: String }) failure_reason: string | null;
  @ApiProperty() created_at: string;
  @ApiProperty({ nullable: true, type: String }) decided_at: string | null;
  @ApiProperty({ nullable: true, type: String }) succeeded_at: string | null;
}

export class RefundListResponse {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [RefundResponse] }) data: RefundResponse[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, type: String }) next_cursor: string | null;
}
