import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ReceiptPartyDoc {
  @ApiProperty() workspace_id: string;
  @ApiProperty() agent_id: string;
}

export class ReceiptSourceDoc {
  @ApiProperty({ enum: ['checkout', 'quote', 'hosted'] }) kind: string;
  @ApiProperty() id: string;
}

/**
 * A receipt entry's signed payload: payment.settled (seq 1) or refund.succeeded (later entries).
 * Fields of the other type are absent; payment.settled may carry more context (e.g. items).
 */
export class ReceiptPayloadDoc {
  @ApiProperty({ enum: ['payment.settled', 'refund.succeeded'] }) type: string;
  @ApiProperty({ example: 'rcp_…' }) receipt_id: string;
  @ApiProperty({ example: 'pi_…' }) intent_id: string;
  @ApiProperty({ type: 'integer', description: 'paise' }) amount_paise: number;
  @ApiProperty({ example: 'INR' }) currency: string;
  @ApiPropertyOptional({ type: () => ReceiptPartyDoc }) buyer?: ReceiptPartyDoc;
  @ApiPropertyOptional({ type: () => ReceiptPartyDoc }) seller?: ReceiptPartyDoc;
  @ApiPropertyOptional({ type: () => ReceiptSourceDoc }) source?: ReceiptSourceDoc;
  @ApiPropertyOptional({ type: String, nullable: true }) token_id?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) mandate_id?: string | null;
  @ApiPropertyOptional({ example: 'rfd_…' }) refund_id?: string;
  @ApiPropertyOptional({ type: 'integer' }) amount_refunded_paise?: number;
  @ApiPropertyOptional({ type: String, nullable: true }) reason?: string | null;
  @ApiPropertyOptional() approval_id?: string;
  @ApiPropertyOptional() rail?: string;
  @ApiPropertyOptional({ type: String, nullable: true }) rail_reference?: string | null;
  @ApiPropertyOptional({ format: 'date-time' }) created_at?: string;
  @ApiPropertyOptional({ type: String, nullable: true, format: 'date-time' })
  settled_at?: string | null;
  @ApiPropertyOptional({ format: 'date-time' }) succeeded_at?: string;
}

export class ReceiptVerificationDoc {
  @ApiProperty({ format: 'uri' }) jwks_url: string;
  @ApiProperty() hash_rule: string;
  @ApiProperty() signature: string;
}

export class ReceiptEntryDoc {
  @ApiProperty() chain_id: string;
  @ApiProperty() seq: number;
  @ApiProperty({ description: '64 hex; 64 zeros for seq 1' }) prev_hash: string;
  @ApiProperty({
    description: 'hex(SHA-256(prev_hash + "\\n" + JCS({chain_id, seq, created_at, payload})))',
  })
  hash: string;
  @ApiProperty() created_at: string;
  @ApiProperty({ type: () => ReceiptPayloadDoc }) payload: Record<string, unknown>;
  @ApiProperty({ description: 'Key id in /.well-known/jwks.json' }) kid: string;
  @ApiProperty({ description: 'Compact JWS (EdDSA) whose payload is `hash`' }) jws: string;
}

export class ReceiptDoc {
  @ApiProperty({ example: 'rcp_…' }) id: string;
  @ApiProperty({ enum: ['receipt'] }) object: string;
  @ApiProperty() intent_id: string;
  @ApiProperty() buyer_agent_id: string;
  @ApiProperty() seller_agent_id: string;
  @ApiProperty() amount_paise: number;
  @ApiProperty() amount_refunded_paise: number;
  @ApiProperty({ example: 'INR' }) currency: string;
  @ApiProperty() status: string;
  @ApiProperty({ type: [ReceiptEntryDoc] }) entries: ReceiptEntryDoc[];
  @ApiProperty({ type: () => ReceiptVerificationDoc }) verification: Record<string, string>;
}
