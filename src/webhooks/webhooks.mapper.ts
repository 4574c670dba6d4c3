import type { OutboxEvent } from '../outbox/outbox-event.entity';
import type { OrderEndpointResponse } from './dto/order-endpoint.dto';
import {
  EventResponse,
  WebhookAttemptResponse,
  WebhookDeliveryResponse,
  WebhookEndpointResponse,
} from './dto/webhook.responses';
import type { WebhookAttempt } from './entities/webhook-attempt.entity';
import type { WebhookDelivery } from './entities/webhook-delivery.entity';
import type { WebhookEndpoint } from './entities/webhook-endpoint.entity';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** `secret` only when it was just issued (create, rotate-secret). */
export function toEndpointResponse(
  e: WebhookEndpoint,
  secret?: string,
  now = new Date(),
): WebhookEndpointResponse {
  const previousLive =
    e.previousSecretExpiresAt && e.previousSecretExpiresAt > now ? e.previousSecretExpiresAt : null;
  return {
    id: e.id,
    object: 'webhook_endpoint',
    url: e.url,
    event_types: e.eventTypes,
    agent_id: e.agentId,
    description: e.description,
    status: e.status,
    disabled_reason: e.disabledReason,
    disabled_at: iso(e.disabledAt),
    ...(secret ? { secret } : {}),
    previous_secret_expires_at: iso(previousLive),
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

export function toDeliveryResponse(d: WebhookDelivery): WebhookDeliveryResponse {
  return {
    id: d.id,
    object: 'webhook_delivery',
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attemptCount,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    next_attempt_at: iso(d.nextAttemptAt),
    delivered_at: iso(d.deliveredAt),
    failed_at: iso(d.failedAt),
    created_at: d.createdAt.toISOString(),
  };
}

export function toAttemptResponse(a: WebhookAttempt): WebhookAttemptResponse {
  return {
    id: a.id,
    object: 'webhook_attempt',
    delivery_id: a.deliveryId,
    attempt: a.attempt,
    trigger: a.trigger,
    succeeded: a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300,
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
    response_body: a.responseBody,
    created_at: a.createdAt.toISOString(),
  };
}

/** The event exactly as webhooks carry it ({id, type, created_at, data}) plus the seller agent. */
export function toEventResponse(e: OutboxEvent): EventResponse {
  const p = e.payload as {
    id: string;
    type: string;
    created_at: string;
    data: Record<string, unknown>;
  };
  return {
    id: p.id,
    object: 'event',
    type: p.type,
    created_at: p.created_at,
    agent_id: e.agentId,
    data: p.data,
  };
}

/** An agent platform's order receiver (/acp/webhooks/order_endpoints); `secret` only on create. */
export function toOrderEndpointResponse(
  e: WebhookEndpoint,
  secret?: string,
): OrderEndpointResponse {
  return {
    id: e.id,
    object: 'order_webhook_endpoint',
    url: e.url,
    description: e.description,
    event_types: e.eventTypes,
    status: e.status,
    disabled_reason: e.disabledReason,
    disabled_at: iso(e.disabledAt),
    ...(secret ? { secret } : {}),
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}
