import { Module } from '@nestjs/common';

import { OutboxRepository } from './outbox.repository';

/**
 * The outbox (docs/architecture.md "Outbox"): the owner of `outbox_events`, written in the
 * transaction of the state change an event announces by every module that raises one (payments,
 * refunds, orders, mandates, recurring charges, forex, breaches, the gateway's capture refunds) and
 * read by the webhook dispatcher. It sits below all of them and imports none.
 */
@Module({
  providers: [OutboxRepository],
  exports: [OutboxRepository],
})
export class OutboxModule {}
