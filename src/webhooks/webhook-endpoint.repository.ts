import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { Cursor, newestFirst } from '../common/pagination';
import { col, sql, SqlFragment, SqlOperand, textOf } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { queryPrepared } from '../database/prepared';
import { Tx } from '../database/tx';
import { outboxParts } from '../outbox/outbox.repository';
import { protocolKeyParts } from '../protocol-keys/protocol-key.repository';
import { ucpOrderWebhookParts } from '../ucp/orders/ucp-order.repository';
import { WebhookEndpoint, WebhookEndpointKind } from './entities/webhook-endpoint.entity';
import { ALL_EVENTS, ORDER_EVENT_TYPES } from './webhook-event-types';

/**
 * Which endpoints a caller sees: a bare workspace id means the workspace's seller endpoints (the
 * /v1 API); an `acp_order` scope means the receivers one merchant key registered (/acp).
 */
export type EndpointScope =
  string | { kind: 'acp_order'; workspaceId: string; protocolKeyId: string };

function scopeWhere(scope: EndpointScope) {
  return typeof scope === 'string'
    ? { workspaceId: scope, kind: 'seller' as WebhookEndpointKind }
    : {
        workspaceId: scope.workspaceId,
        kind: scope.kind as WebhookEndpointKind,
        protocolKeyId: scope.protocolKeyId,
      };
}

/** SQL on webhook_endpoints for another owner's statement (docs/architecture.md "Table owners"). */
export const endpointParts = {
  /** The endpoint `id` as row_to_json (null when there is none). */
  rowJson: (id: SqlOperand): SqlFragment =>
    sql`(SELECT row_to_json(ep) FROM webhook_endpoints ep WHERE ep.id = ${id})`,
  /** True when the endpoint is enabled. */
  enabled: (id: SqlOperand): SqlFragment =>
    sql`EXISTS (SELECT 1 FROM webhook_endpoints ep WHERE ep.id = ${id} AND ep.status = 'enabled')`,
};

/** A delivery owed: an event and an endpoint that should receive it. */
export interface EndpointMatch {
  event_id: string;
  workspace_id: string;
  type: string;
  endpoint_id: string;
}

/**
 * The fan-out, matched in SQL: an enabled endpoint of the event's workspace, for its seller agent
 * (or every agent), subscribed to its type (or '*'), and registered no later than the event
 * happened, so a new endpoint never receives the backlog from before it existed. The endpoint kind
 * splits the audiences: ACP order events go only to acp_order endpoints of the merchant key the
 * checkout session was created with (while that key is not revoked), and acp_order endpoints
 * receive nothing else.
 */
export function matchEndpoints(m: EntityManager, eventIds: string[]): Promise<EndpointMatch[]> {
  // Prepared: one per dispatch, and this statement took longer to plan than to run.
  return queryPrepared(
    m,
    textOf(sql`SELECT ev.id AS event_id, ev.workspace_id, ev.type, ep.id AS endpoint_id
       FROM (${outboxParts.events()}) ev
       JOIN webhook_endpoints ep ON ep.workspace_id = ev.workspace_id
      WHERE ev.id = ANY($1)
        AND ep.status = 'enabled'
        AND (ep.agent_id IS NULL OR ep.agent_id = ev.agent_id)
        AND ($2 = ANY(ep.event_types) OR ev.type = ANY(ep.event_types))
        AND ep.created_at <= ev.created_at
        AND CASE ep.kind
              WHEN 'acp_order' THEN ev.type = ANY($3)
                AND ev.protocol_key_id = ep.protocol_key_id
                AND ${protocolKeyParts.live(col('ep.protocol_key_id'))}
              WHEN 'ucp_order' THEN ev.type = ANY($3)
                AND ev.protocol_key_id = ep.protocol_key_id
                AND ${protocolKeyParts.live(col('ep.protocol_key_id'))}
                AND ${ucpOrderWebhookParts.boundTo(
                  col('ep.id'),
                  // The event's session, read through the outbox owner's part (its own alias is
                  // ev too, hence the one-row o between them).
                  sql`(SELECT (${outboxParts.rowJson(col('o.oid'))}) -> 'payload' -> 'data' ->> 'checkout_session_id' FROM (SELECT ev.id AS oid) o)`,
                )}
              ELSE NOT (ev.type = ANY($3))
            END
      ORDER BY ev.created_at, ev.id, ep.id`),
    [eventIds, ALL_EVENTS, [...ORDER_EVENT_TYPES]],
  ) as Promise<EndpointMatch[]>;
}

/**
 * The owner of webhook_endpoints (docs/architecture.md "Table owners"); WebhookEndpointsService
 * and WebhookDeliveriesService keep the logic, the dispatcher uses `matchEndpoints`.
 */
@Injectable()
export class WebhookEndpointRepository {
  constructor(private readonly tx: Tx) {}

  async insert(endpoint: WebhookEndpoint): Promise<void> {
    await this.tx.manager.insert(WebhookEndpoint, endpoint);
  }

  /** The enabled ucp_order endpoint of this merchant key for this URL, if any. */
  enabledUcpOrder(
    workspaceId: string,
    protocolKeyId: string,
    url: string,
  ): Promise<WebhookEndpoint | null> {
    return this.tx.manager.findOne(WebhookEndpoint, {
      where: { workspaceId, protocolKeyId, url, kind: 'ucp_order', status: 'enabled' },
      order: { createdAt: 'DESC' },
    });
  }

  /** The enabled endpoints of a workspace with this description. */
  enabledWithDescription(workspaceId: string, description: string): Promise<WebhookEndpoint[]> {
    return this.tx.manager.findBy(WebhookEndpoint, {
      workspaceId,
      description,
      status: 'enabled',
    });
  }

  /** Endpoints in a scope, newest first (limit + 1 rows, for toPage). */
  page(scope: EndpointScope, limit: number, cursor: Cursor | null): Promise<WebhookEndpoint[]> {
    const where = scopeWhere(scope);
    const qb = this.tx.manager
      .createQueryBuilder(WebhookEndpoint, 'e')
      .where('e.workspace_id = :workspaceId AND e.kind = :kind', where);
    if ('protocolKeyId' in where) {
      qb.andWhere('e.protocol_key_id = :protocolKeyId', where);
    }
    return newestFirst(qb, 'e', limit, cursor).getMany();
  }

  /** An endpoint in a scope, any status. */
  findInScope(scope: EndpointScope, id: string): Promise<WebhookEndpoint | null> {
    return this.tx.manager.findOneBy(WebhookEndpoint, { id, ...scopeWhere(scope) });
  }

  /** SELECT … FOR UPDATE of an endpoint in a scope. */
  lockInScope(scope: EndpointScope, id: string): Promise<WebhookEndpoint | null> {
    return this.tx.manager.findOne(WebhookEndpoint, {
      where: { id, ...scopeWhere(scope) },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** A workspace's endpoint by id (any status, any kind). */
  findInWorkspace(workspaceId: string, id: string): Promise<WebhookEndpoint | null> {
    return this.tx.manager.findOneBy(WebhookEndpoint, { id, workspaceId });
  }

  async update(id: string, patch: Partial<WebhookEndpoint>): Promise<void> {
    await this.tx.manager.update(WebhookEndpoint, { id }, patch);
  }

  /** Disables an enabled endpoint with this reason; true when it was enabled. */
  async disableIfEnabled(id: string, reason: string, now: Date): Promise<boolean> {
    const res: [unknown[], number] = await this.tx.manager.query(
      `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $3, disabled_at = $2, updated_at = $2
        WHERE id = $1 AND status = 'enabled'`,
      [id, now, reason],
    );
    return res[1] > 0;
  }
}

/** Erasure's reach into webhook_endpoints: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const webhookEndpointsPersonalRows = personalRows(
  'webhook_endpoints',
  't.workspace_id = s.ws',
);
