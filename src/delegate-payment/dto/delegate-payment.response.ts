import { ApiProperty } from '@nestjs/swagger';

/** DelegatePaymentResponse (closed): exactly these three fields, metadata values all strings. */
export class DelegatePaymentResponse {
  @ApiProperty({ example: 'vt_…' }) id: string;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'The request metadata echoed, plus merchant_id, checkout_session_id, mandate_id, idempotency_key, source ("svc"); and status "pending_authorisation" with authorization_url while the mandate awaits the person',
  })
  metadata: Record<string, string>;
}
