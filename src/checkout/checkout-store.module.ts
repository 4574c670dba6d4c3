import { Module } from '@nestjs/common';

import { CheckoutSessionRepository } from './checkout-session.repository';

/**
 * The owner of checkout_sessions (docs/architecture.md "Table owners"), in a module of its own so
 * that orders (which the checkout module itself imports) read sessions through it.
 */
@Module({
  providers: [CheckoutSessionRepository],
  exports: [CheckoutSessionRepository],
})
export class CheckoutStoreModule {}
