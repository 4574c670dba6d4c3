import { Controller, Headers, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import {
  ApiBody,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';

import type { RawBodyRequest } from '../common/http/http-pipeline';
import { RateLimitedAfterSignature } from '../common/rate-limit/public-rate-limit.guard';
import { GatewayWebhookGuard } from './gateway-webhook.guard';
import { GatewayWebhooksService, WebhookAnswer } from './gateway-webhooks.service';

class GatewayWebhookResponse implements WebhookAnswer {
  @ApiProperty({ enum: [true] }) received: true;
  @ApiProperty({ example: 'evt_…' }) event_id: string;
  @ApiProperty({
    enum: [
      'applied',
      'no_change',
      'unmatched',
      'ignored',
      'refund_due',
      'unprocessable',
      'duplicate',
    ],
    description:
      'applied: the event changed a payment, refund or mandate token; no_change: it was already so (a state never moves backwards); unmatched: no order of ours (stored for reconciliation); ignored: an event the service does not use; refund_due: a captured payment the service cannot settle, held for a full refund; unprocessable: correctly signed but not an event the service can read (not JSON, or a field it reads is missing or of the wrong type), stored with the reason for an operator and not applied; duplicate: this event id was already received',
  })
  outcome: WebhookAnswer['outcome'];
}

/**
 * POST /v1/webhooks/gateway (spec §4 "Planned", §5 rule 7): where the payment gateway sends its
 * events. No credential: the body's HMAC (X-Gateway-Signature) is the authentication. Configured
 * at the gateway by the service's operator (docs/gateway.md "Going live on the gateway"), not by
 * integrators.
 */
@ApiTags('gateway')
@RateLimitedAfterSignature()
@UseGuards(GatewayWebhookGuard)
@Controller('v1/webhooks/gateway')
export class GatewayWebhooksController {
  constructor(private readonly webhooks: GatewayWebhooksService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'receiveGatewayWebhook',
    summary:
      'Inbound payment-gateway events (payment.captured, payment.failed, order.paid, refund.processed, refund.failed, token.confirmed, …). X-Gateway-Signature must be the hex HMAC-SHA256 of the raw body with the webhook secret (else 401, nothing recorded); X-Gateway-Event-Id (1–128 printable ASCII characters; else 400) is recorded with the event’s effect in one transaction and a repeat is answered duplicate without effect. Events for unknown orders are stored as unmatched (200); a signed body that is not an event the service can read is stored as unprocessable (200). Correctly signed events are never rate limited; anything else counts against the per-address public limit (429).',
  })
  @ApiHeader({
    name: 'X-Gateway-Signature',
    required: true,
    description: 'hex HMAC-SHA256 of the raw body',
  })
  @ApiHeader({
    name: 'X-Gateway-Event-Id',
    required: true,
    description:
      'evt_…, the same on every retry: 1–128 printable ASCII characters (space to ~, not at either end)',
  })
  @ApiBody({
    description:
      'The gateway event: {entity: "event", account_id, event, contains, payload, created_at}',
    schema: {
      type: 'object',
      required: ['event', 'payload'],
      properties: {
        entity: { type: 'string', enum: ['event'] },
        account_id: { type: 'string' },
        event: { type: 'string', example: 'payment.captured' },
        contains: { type: 'array', items: { type: 'string' } },
        payload: { type: 'object', additionalProperties: true },
        created_at: { type: 'integer' },
      },
    },
  })
  @ApiOkResponse({ type: GatewayWebhookResponse })
  @ApiUnauthorizedResponse({
    description: 'invalid_signature: X-Gateway-Signature missing or not the body’s HMAC',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/V1Error' } } },
  })
  receive(
    @Req() req: RawBodyRequest,
    @Headers('x-gateway-signature') signature: string | undefined,
    @Headers('x-gateway-event-id') eventId: string | undefined,
  ): Promise<WebhookAnswer> {
    return this.webhooks.receive(req.rawBody, signature, eventId);
  }
}
