import {
  CallHandler,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
  NestInterceptor,
  OnModuleInit,
} from '@nestjs/common';
import type { Request } from 'express';
import { mergeMap, Observable } from 'rxjs';

import { principalOf } from '../../common/auth/auth.decorators';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import type { AcpOrderResponse } from '../../orders/dto/order.response';
import type { OutboxEvent } from '../../outbox/outbox-event.entity';
import { EndpointKindSigners } from '../../webhooks/endpoint-kind-signers';
import { checkWebhookUrl } from '../../webhooks/url-policy';
import { WebhookEndpointsService } from '../../webhooks/webhook-endpoints.service';
import { UcpCheckoutController } from '../ucp-checkout.controller';
import { profileUrlOf, UCP_AGENT_HEADER, UcpNegotiation } from '../ucp-negotiation';
import { ORDER_CAPABILITY, UCP_VERSION } from '../ucp-profile';
import { toUcpOrder } from './ucp-order.mapper';
import { UcpOrderRepository } from './ucp-order.repository';
import { UcpSigningKeyService } from './ucp-signing-key.service';

type Json = Record<string, unknown>;

/** The order webhook URL of a platform profile's order capability at our version, if any. */
export function orderWebhookUrlOf(capabilities: Json): string | null {
  const entries = capabilities[ORDER_CAPABILITY];
  if (!Array.isArray(entries)) {
    return null;
  }
  for (const e of entries as Json[]) {
    const config = e?.config as Json | undefined;
    if (e?.version === UCP_VERSION && typeof config?.webhook_url === 'string') {
      return config.webhook_url;
    }
  }
  return null;
}

/**
 * UCP order webhooks (docs/ucp.md "Order webhooks"). Two parts:
 * - after a UCP checkout session is created (201), the platform's order webhook URL is read from
 *   its profile (the one negotiation fetched and cached) and the session is bound to the
 *   `ucp_order` endpoint of the merchant key for that URL (ucp_order_webhooks);
 * - the `ucp_order` signer of the webhook pipeline: the body is the UCP order of the stored ACP
 *   order event, the headers Standard Webhooks' id and timestamp, UCP-Agent naming our profile,
 *   and an RFC 9421 signature with our ES256 key.
 */
@Injectable()
export class UcpOrderWebhooks implements NestInterceptor, OnModuleInit {
  private readonly logger = new Logger(UcpOrderWebhooks.name);

  constructor(
    private readonly negotiation: UcpNegotiation,
    private readonly endpoints: WebhookEndpointsService,
    private readonly signers: EndpointKindSigners,
    private readonly keys: UcpSigningKeyService,
    private readonly repo: UcpOrderRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.signers.register('ucp_order', {
      body: (event: OutboxEvent) =>
        JSON.stringify(toUcpOrder((event.payload as { data: AcpOrderResponse }).data)),
      headers: ({ url, eventId, body, at }) => {
        const headers = {
          'content-type': 'application/json',
          'ucp-agent': `profile="${this.config.baseUrl}/.well-known/ucp"`,
          'webhook-id': eventId,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        };
        return {
          ...headers,
          ...this.keys.signRequest({ method: 'POST', url, headers, body, at }),
        };
      },
    });
  }

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getClass() !== UcpCheckoutController || ctx.getHandler().name !== 'create') {
      return next.handle();
    }
    const req = ctx.switchToHttp().getRequest<Request>();
    return next.handle().pipe(
      mergeMap(async (value: unknown) => {
        await this.bindSession(req, value);
        return value;
      }),
    );
  }

  /** Never fails the checkout: a platform without an order webhook simply gets none. */
  private async bindSession(req: Request, value: unknown): Promise<void> {
    const id = (value as { id?: unknown } | null)?.id;
    const caller = principalOf(req);
    if (typeof id !== 'string' || caller?.kind !== 'protocol_key' || !this.keys.available) {
      return;
    }
    try {
      const profileUrl = profileUrlOf(req.header(UCP_AGENT_HEADER));
      // The profile negotiation fetched for this request, from its cache (same rules, same TTL).
      const profile = await this.negotiation.profile(profileUrl);
      const webhookUrl = orderWebhookUrlOf(profile.capabilities);
      if (!webhookUrl) {
        return;
      }
      const checked = await checkWebhookUrl(webhookUrl, this.config.mode);
      if (!(checked instanceof URL)) {
        this.logger.warn({ reason: checked.reason }, 'UCP order webhook URL refused');
        return;
      }
      const endpoint = await this.endpoints.ensureUcpOrderEndpoint(
        { workspaceId: caller.workspaceId, agentId: caller.agentId, protocolKeyId: caller.id },
        checked.toString(),
        { type: 'protocol_key', id: caller.id },
      );
      await this.repo.bind({
        checkoutSessionId: id,
        endpointId: endpoint.id,
        profileUrl,
        webhookUrl: checked.toString(),
        now: this.clock.now(),
      });
    } catch (err) {
      this.logger.warn(
        { checkout_session_id: id, err: (err as Error).message },
        'UCP order webhook not bound',
      );
    }
  }
}
