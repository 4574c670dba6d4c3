import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { AgentRepository } from '../accounts/agent.repository';
import { canSell } from '../accounts/entities/agent.entity';
import { AuditActor, AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { decodeCursor, newestFirst, Page, toPage } from '../common/pagination';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { col, sql, SqlFragment, SqlOperand, textOf } from '../database/fragment';
import { Tx } from '../database/tx';
import { outboxParts } from '../outbox/outbox.repository';
import { protocolKeyParts } from '../protocol-keys/protocol-keys.service';
import { WebhookEndpointResponse } from './dto/webhook.responses';
import { WebhookEndpoint, WebhookEndpointKind } from './entities/webhook-endpoint.entity';
import { checkWebhookUrl } from './url-policy';
import { ENDPOINTS_LOCK_CLASS } from './webhook-dispatcher';
import { ALL_EVENTS, ORDER_EVENT_TYPES } from './webhook-event-types';
import { issueWebhookSecret, WebhookSecrets } from './webhook-secrets';
import { webhookErrors } from './webhooks.errors';
import { toEndpointResponse } from './webhooks.mapper';

export interface CreateEndpointInput {
  url: string;
  eventTypes: string[];
  agentId?: string;
  description?: string;
}

/** An agent platform's order receiver (docs/webhooks.md "Order webhooks"): its merchant key and that key's seller. */
export interface OrderEndpointOwner {
  workspaceId: string;
  agentId: string;
  protocolKeyId: string;
}

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

const workspaceOf = (scope: EndpointScope) =>
  typeof scope === 'string' ? scope : scope.workspaceId;

/** Default overlap after rotate-secret: deliveries carry both signatures for a day. */
export const PREVIOUS_SECRET_TTL_S = 24 * 3600;

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
  return m.query(
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
              ELSE NOT (ev.type = ANY($3))
            END
      ORDER BY ev.created_at, ev.id, ep.id`),
    [eventIds, ALL_EVENTS, [...ORDER_EVENT_TYPES]],
  );
}

/** A workspace's endpoint by id (any status). */
export function findWorkspaceEndpoint(
  m: EntityManager,
  workspaceId: string,
  id: string,
): Promise<WebhookEndpoint | null> {
  return m.findOneBy(WebhookEndpoint, { id, workspaceId });
}

/** Disables an enabled endpoint with this reason; true when it was enabled. */
export async function disableEnabledEndpoint(
  m: EntityManager,
  id: string,
  reason: string,
  now: Date,
): Promise<boolean> {
  const res: [unknown[], number] = await m.query(
    `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $3, disabled_at = $2, updated_at = $2
      WHERE id = $1 AND status = 'enabled'`,
    [id, now, reason],
  );
  return res[1] > 0;
}

/** Webhook endpoints of a workspace: register (secret shown once), list, disable/enable, rotate. */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly agents: AgentRepository,
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly secrets: WebhookSecrets,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async createEndpoint(
    workspaceId: string,
    input: CreateEndpointInput,
    actor: AuditActor,
  ): Promise<WebhookEndpointResponse> {
    if (input.eventTypes.includes(ALL_EVENTS) && input.eventTypes.length > 1) {
      throw webhookErrors.wildcardNotAlone();
    }
    const { endpoint, secret } = await this.register(workspaceId, input, actor, null);
    return toEndpointResponse(endpoint, secret, endpoint.createdAt);
  }

  /**
   * An agent platform's receiver for ACP order events, registered with its merchant key: bound
   * to that key and its seller agent, subscribed to order_create/order_update only, signed with
   * Merchant-Signature. Same URL policy, secret sealing and registration lock as seller endpoints.
   */
  async createOrderEndpoint(
    owner: OrderEndpointOwner,
    input: { url: string; description?: string },
    actor: AuditActor,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    return this.register(
      owner.workspaceId,
      {
        url: input.url,
        description: input.description,
        agentId: owner.agentId,
        eventTypes: [...ORDER_EVENT_TYPES],
      },
      actor,
      owner.protocolKeyId,
    );
  }

  private async register(
    workspaceId: string,
    input: CreateEndpointInput,
    actor: AuditActor,
    protocolKeyId: string | null,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const url = await checkWebhookUrl(input.url, this.config.mode);
    if (!(url instanceof URL)) {
      throw webhookErrors.urlRefused(url.reason);
    }
    return this.tx.run(async (m) => {
      // Held until commit. A dispatcher batch for this workspace either finished before (its
      // events were committed earlier, so they are older than `now` below and not ours) or waits
      // for this commit and then sees the endpoint: no event at or after created_at is missed.
      await m.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
        ENDPOINTS_LOCK_CLASS,
        workspaceId,
      ]);
      if (input.agentId && !protocolKeyId) {
        const agent = await this.agents.findInWorkspace(workspaceId, input.agentId);
        if (!agent || agent.disabledAt || !canSell(agent.role)) {
          throw webhookErrors.agentNotSeller(input.agentId);
        }
      }
      // Taken after the lock: the dispatcher sends this endpoint only events created at or after it.
      const now = this.clock.now();
      const id = newId('whe');
      const secret = issueWebhookSecret();
      const endpoint: WebhookEndpoint = {
        id,
        workspaceId,
        kind: protocolKeyId ? 'acp_order' : 'seller',
        protocolKeyId,
        agentId: input.agentId ?? null,
        url: url.toString(),
        description: input.description ?? null,
        eventTypes: input.eventTypes,
        secretCiphertext: this.secrets.seal(secret, id),
        previousSecretCiphertext: null,
        previousSecretExpiresAt: null,
        status: 'enabled',
        disabledReason: null,
        disabledAt: null,
        createdAt: now,
        updatedAt: now,
      };
      await m.insert(WebhookEndpoint, endpoint);
      await this.audit.record(workspaceId, actor, 'webhook_endpoint.created', id, {
        url: endpoint.url,
        event_types: endpoint.eventTypes,
        agent_id: endpoint.agentId,
        kind: endpoint.kind,
        protocol_key_id: protocolKeyId,
      });
      return { endpoint, secret };
    });
  }

  /** The enabled endpoints of a workspace with this description (the sandbox's own). */
  enabledWithDescription(workspaceId: string, description: string): Promise<WebhookEndpoint[]> {
    return this.tx.manager.findBy(WebhookEndpoint, {
      workspaceId,
      description,
      status: 'enabled',
    });
  }

  async listEndpoints(
    workspaceId: string,
    limit = 20,
    startingAfter?: string,
  ): Promise<Page<WebhookEndpointResponse>> {
    const now = this.clock.now();
    return toPage(await this.listRows(workspaceId, limit, startingAfter), limit, (e) =>
      toEndpointResponse(e, undefined, now),
    );
  }

  /** Endpoints in a scope, newest first (limit + 1 rows, for toPage). */
  async listRows(
    scope: EndpointScope,
    limit = 20,
    startingAfter?: string,
  ): Promise<WebhookEndpoint[]> {
    const cursor = decodeCursor(startingAfter);
    const where = scopeWhere(scope);
    const qb = this.tx.manager
      .createQueryBuilder(WebhookEndpoint, 'e')
      .where('e.workspace_id = :workspaceId AND e.kind = :kind', where);
    if ('protocolKeyId' in where) {
      qb.andWhere('e.protocol_key_id = :protocolKeyId', where);
    }
    return newestFirst(qb, 'e', limit, cursor).getMany();
  }

  async getEndpoint(workspaceId: string, id: string): Promise<WebhookEndpointResponse> {
    return toEndpointResponse(await this.getRow(workspaceId, id), undefined, this.clock.now());
  }

  async getRow(scope: EndpointScope, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.tx.manager.findOneBy(WebhookEndpoint, {
      id,
      ...scopeWhere(scope),
    });
    if (!endpoint) {
      throw webhookErrors.endpointNotFound(id);
    }
    return endpoint;
  }

  /** Pauses the endpoint: no new deliveries, pending ones wait until it is enabled again. */
  disableEndpoint(
    workspaceId: string,
    id: string,
    actor: AuditActor,
  ): Promise<WebhookEndpointResponse> {
    return this.setStatusRow(workspaceId, id, 'disabled', actor).then((e) =>
      toEndpointResponse(e, undefined, this.clock.now()),
    );
  }

  /**
   * Re-enables (also after retries_exhausted or gone). Pending deliveries resume through the stalled-
   * delivery sweep; failed ones stay failed until redelivered.
   */
  enableEndpoint(
    workspaceId: string,
    id: string,
    actor: AuditActor,
  ): Promise<WebhookEndpointResponse> {
    return this.setStatusRow(workspaceId, id, 'enabled', actor).then((e) =>
      toEndpointResponse(e, undefined, this.clock.now()),
    );
  }

  /** A person's enable/disable under the row lock; a no-op (and no audit row) when already there. */
  setStatusRow(
    scope: EndpointScope,
    id: string,
    target: 'enabled' | 'disabled',
    actor: AuditActor,
  ): Promise<WebhookEndpoint> {
    return this.tx.run(async () => {
      const endpoint = await this.lock(scope, id);
      if (endpoint.status !== target) {
        const now = this.clock.now();
        const patch: Partial<WebhookEndpoint> =
          target === 'disabled'
            ? {
                status: target,
                disabledReason: 'disabled_by_user',
                disabledAt: now,
                updatedAt: now,
              }
            : { status: target, disabledReason: null, disabledAt: null, updatedAt: now };
        Object.assign(endpoint, patch);
        await this.tx.manager.update(WebhookEndpoint, { id }, patch);
        await this.audit.record(workspaceOf(scope), actor, `webhook_endpoint.${target}`, id);
      }
      return endpoint;
    });
  }

  /**
   * New secret, shown once. The old one keeps signing (a second signature in webhook-signature)
   * for `previousTtlSeconds`, so receivers can switch without dropping deliveries.
   */
  async rotateSecret(
    workspaceId: string,
    id: string,
    previousTtlSeconds: number,
    actor: AuditActor,
  ): Promise<WebhookEndpointResponse> {
    return this.tx.run(async () => {
      const endpoint = await this.lock(workspaceId, id);
      const now = this.clock.now();
      const secret = issueWebhookSecret();
      const patch = {
        secretCiphertext: this.secrets.seal(secret, id),
        previousSecretCiphertext: previousTtlSeconds > 0 ? endpoint.secretCiphertext : null,
        previousSecretExpiresAt:
          previousTtlSeconds > 0 ? new Date(now.getTime() + previousTtlSeconds * 1000) : null,
        updatedAt: now,
      };
      Object.assign(endpoint, patch);
      await this.tx.manager.update(WebhookEndpoint, { id }, patch);
      await this.audit.record(workspaceId, actor, 'webhook_endpoint.secret_rotated', id, {
        previous_secret_expires_at: patch.previousSecretExpiresAt?.toISOString() ?? null,
      });
      return toEndpointResponse(endpoint, secret, now);
    });
  }

  private async lock(scope: EndpointScope, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.tx.manager.findOne(WebhookEndpoint, {
      where: { id, ...scopeWhere(scope) },
      lock: { mode: 'pessimistic_write' },
    });
    if (!endpoint) {
      throw webhookErrors.endpointNotFound(id);
    }
    return endpoint;
  }
}
