import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';

import { CheckoutModule } from '../checkout/checkout.module';
import { PostgresNonceStore } from '../common/signing/http-message-signatures/postgres-nonce-store';
import { OrdersModule } from '../orders/orders.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { UcpOrderRepository } from './orders/ucp-order.repository';
import { UcpOrderWebhooks } from './orders/ucp-order-webhooks';
import { UcpOrdersController } from './orders/ucp-orders.controller';
import { UcpSigningKeyService } from './orders/ucp-signing-key.service';
import { UcpAgentGuard, UcpMerchantGuard, UcpSignatureGuard } from './ucp.guards';
import { UcpCheckoutController } from './ucp-checkout.controller';
import { UcpDiscoveryController } from './ucp-discovery.controller';
import { UcpNegotiation } from './ucp-negotiation';
import { UcpRequestSignatures } from './ucp-request-signatures';

/**
 * Universal Commerce Protocol 2026-04-08 (docs/ucp.md): discovery at /.well-known/ucp,
 * negotiation on UCP-Agent, and the checkout REST binding under /ucp over the ACP checkout
 * sessions (CheckoutService, CheckoutCompletionService): one pricing, one payment pipeline.
 * Orders (src/ucp/orders): GET /ucp/orders/{id} over OrdersService, and order events to the
 * platform's webhook through the webhook pipeline, signed with RFC 9421.
 */
@Module({
  imports: [CheckoutModule, OrdersModule, WebhooksModule],
  controllers: [UcpDiscoveryController, UcpCheckoutController, UcpOrdersController],
  providers: [
    UcpNegotiation,
    UcpMerchantGuard,
    UcpAgentGuard,
    UcpSignatureGuard,
    UcpRequestSignatures,
    PostgresNonceStore,
    UcpOrderRepository,
    UcpSigningKeyService,
    UcpOrderWebhooks,
    { provide: APP_INTERCEPTOR, useExisting: UcpOrderWebhooks },
  ],
  // The MCP binding (src/mcp/ucp/) negotiates with the same instance (and its profile cache).
  exports: [UcpNegotiation],
})
export class UcpModule {}
