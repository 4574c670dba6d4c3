import { ApiProperty } from '@nestjs/swagger';

/** DelegatePaymentResponse (closed): exactly these three fields, metadata values all strings. */
export class DelegatePaymentResponse {
  @ApiProperty({ example: 'vt_…' }) id: string;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    required: ['merchant_id', 'checkout_session_id', 'mandate_id', 'idempotency_key', 'source'],
    properties: {
      merchant_id: { type: 'string', example: 'agt_…' },
      checkout_session_id: { type: 'string', example: 'cs_…' },
      mandate_id: { type: 'string', example: 'mdt_…' },
      idempotency_key: { type: 'string' },
      source: { type: 'string', enum: ['svc'] },
      status: { type: 'string', enum: ['pending_authorisation'] },
      authorization_url: { type: 'string', format: 'uri' },
    },
    description:
      'The request metadata echoed, plus merchant_id, checkout_session_id, mandate_id, idempotency_key, source ("svc"); and status "pending_authorisation" with authorization_url while the mandate awaits the person',
  })
  metadata: Record<string, string>;
}
