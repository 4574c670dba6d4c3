import { Injectable } from '@nestjs/common';

import { decodeCursor, Page, toPage } from '../common/pagination';
import { Tx } from '../database/tx';
import { pageEvents } from '../outbox/outbox.repository';
import { EventResponse } from './dto/webhook.responses';
import { toEventResponse } from './webhooks.mapper';

/** The workspace's events as webhooks carry them, so a seller can reconcile missed deliveries. */
@Injectable()
export class EventsService {
  constructor(private readonly tx: Tx) {}

  async listEvents(
    workspaceId: string,
    filter: { type?: string; agentId?: string },
    limit = 20,
    startingAfter?: string,
  ): Promise<Page<EventResponse>> {
    const cursor = decodeCursor(startingAfter);
    const rows = await pageEvents(this.tx.manager, workspaceId, filter, limit, cursor);
    return toPage(rows, limit, toEventResponse);
  }
}
