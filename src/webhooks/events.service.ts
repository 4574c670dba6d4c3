import { Injectable } from '@nestjs/common';

import { decodeCursor, newestFirst, Page, toPage } from '../common/pagination';
import { Tx } from '../database/tx';
import { OutboxEvent } from '../payments/entities/outbox-event.entity';
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
    const qb = this.tx.manager
      .createQueryBuilder(OutboxEvent, 'e')
      .where('e.workspace_id = :workspaceId', { workspaceId });
    if (filter.type) {
      qb.andWhere('e.type = :type', { type: filter.type });
    }
    if (filter.agentId) {
      qb.andWhere('e.agent_id = :agentId', { agentId: filter.agentId });
    }
    const rows = await newestFirst(qb, 'e', limit, cursor).getMany();
    return toPage(rows, limit, toEventResponse);
  }
}
