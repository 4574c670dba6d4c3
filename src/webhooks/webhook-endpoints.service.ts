import { Inject, Injectable } from '@nestjs/common';

import { AgentRepository } from '../accounts/agent.repository';
import { canSell } from '../accounts/entities/agent.entity';
import { AuditActor, AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { WebhookEndpointResponse } from './dto/webhook.responses';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { checkWebhookUrl } from './url-policy';
import { ENDPOINTS_LOCK_CLASS } from './webhook-dispatcher';
import { EndpointScope, WebhookEndpointRepository } from './webhook-endpoint.repository';
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

const workspaceOf = (scope: EndpointScope) =>
  typeof scope === 'string' ? scope : scope.workspaceId;

/** Default overlap after rotate-secret: deliveries carry both signatures for a day. */
export const PREVIOUS_SECRET_TTL_S = 24 * 3600;

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
    private readonly endpoints: WebhookEndpointRepository,
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

  /**
   * The ucp_order endpoint of a merchant key for a UCP platform's order webhook URL (docs/ucp.md
   * "Orders"): the enabled one, or a new one (also after the last was disabled, e.g. by a 410,
   * since the platform's profile names the URL again). Its secret is never used: deliveries are
   * signed by src/ucp with our UCP key.
   */
  async ensureUcpOrderEndpoint(
    owner: OrderEndpointOwner,
    url: string,
    actor: AuditActor,
  ): Promise<WebhookEndpoint> {
    return this.tx.run(async () => {
      const existing = await this.endpoints.enabledUcpOrder(
        owner.workspaceId,
        owner.protocolKeyId,
        url,
      );
      if (existing) {
        return existing;
      }
      const { endpoint } = await this.register(
        owner.workspaceId,
        {
          url,
          description: 'UCP order webhook',
          agentId: owner.agentId,
          eventTypes: [...ORDER_EVENT_TYPES],
        },
        actor,
        owner.protocolKeyId,
        'ucp_order',
      );
      return endpoint;
    });
  }

  private async register(
    workspaceId: string,
    input: CreateEndpointInput,
    actor: AuditActor,
    protocolKeyId: string | null,
    kind?: 'ucp_order',
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
        kind: kind ?? (protocolKeyId ? 'acp_order' : 'seller'),
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
      await this.endpoints.insert(endpoint);
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
    return this.endpoints.enabledWithDescription(workspaceId, description);
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
    return this.endpoints.page(scope, limit, decodeCursor(startingAfter));
  }

  async getEndpoint(workspaceId: string, id: string): Promise<WebhookEndpointResponse> {
    return toEndpointResponse(await this.getRow(workspaceId, id), undefined, this.clock.now());
  }

  async getRow(scope: EndpointScope, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.endpoints.findInScope(scope, id);
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
        await this.endpoints.update(id, patch);
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
      await this.endpoints.update(id, patch);
      await this.audit.record(workspaceId, actor, 'webhook_endpoint.secret_rotated', id, {
        previous_secret_expires_at: patch.previousSecretExpiresAt?.toISOString() ?? null,
      });
      return toEndpointResponse(endpoint, secret, now);
    });
  }

  private async lock(scope: EndpointScope, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.endpoints.lockInScope(scope, id);
    if (!endpoint) {
      throw webhookErrors.endpointNotFound(id);
    }
    return endpoint;
  }
}
