import { Controller, Get, Render, UseGuards, UseInterceptors } from '@nestjs/common';

import { CredentialRateLimitGuard } from '../common/rate-limit/credential-rate-limit.guard';
import { OperatorGuard } from '../ops/operator.guard';
import { AppLayout } from '../web/app-layout.service';
import { AppController, CurrentPerson } from '../web/current-person.decorator';
import { NoStoreInterceptor } from '../web/no-store.interceptor';
import type { SignedInPerson } from '../web/signed-in-person';
import { GatewayEventsReview } from './gateway-events-review.service';

/** How many events the page lists (oldest first); the counts above it are of all of them. */
const PAGE_SIZE = 200;

/**
 * GET /app/ops/gateway-events: the gateway's inbound events an operator should look at (docs/gateway.md
 * "Going live on the gateway"): correctly signed events that did not parse (`unprocessable`, with
 * what failed) and events for no order of ours (`unmatched`), with their age. Operators only
 * (OperatorGuard: anyone else gets the app's 404 page); read-only, no forms.
 */
@AppController()
@UseGuards(OperatorGuard, CredentialRateLimitGuard)
@UseInterceptors(NoStoreInterceptor)
@Controller('app/ops/gateway-events')
export class GatewayEventsOpsController {
  constructor(
    private readonly review: GatewayEventsReview,
    private readonly layout: AppLayout,
  ) {}

  @Get()
  @Render('app/ops-gateway-events')
  async page(@CurrentPerson() person: SignedInPerson) {
    const { events, counts } = await this.review.forOperators(PAGE_SIZE);
    return this.layout.page(person, 'Gateway events', { events, counts });
  }
}
