import { Module } from '@nestjs/common';

import { CheckoutModule } from '../checkout/checkout.module';
import { PostgresNonceStore } from '../common/signing/http-message-signatures/postgres-nonce-store';
import { UcpAgentGuard, UcpMerchantGuard, UcpSignatureGuard } from './ucp.guards';
import { UcpCheckoutController } from './ucp-checkout.controller';
import { UcpDiscoveryController } from './ucp-discovery.controller';
import { UcpNegotiation } from './ucp-negotiation';
import { UcpRequestSignatures } from './ucp-request-signatures';

/**
 * Universal Commerce Protocol 2026-04-08 (docs/ucp.md): discovery at /.well-known/ucp,
 * negotiation on UCP-Agent, and the checkout REST binding under /ucp over the ACP checkout
 * sessions (CheckoutService, CheckoutCompletionService): one pricing, one payment pipeline.
 */
@Module({
  imports: [CheckoutModule],
  controllers: [UcpDiscoveryController, UcpCheckoutController],
  providers: [
    UcpNegotiation,
    UcpMerchantGuard,
    UcpAgentGuard,
    UcpSignatureGuard,
    UcpRequestSignatures,
    PostgresNonceStore,
  ],
  // The MCP binding (src/mcp/ucp/) negotiates with the same instance (and its profile cache).
  exports: [UcpNegotiation],
})
export class UcpModule {}
