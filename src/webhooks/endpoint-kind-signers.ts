import { Injectable } from '@nestjs/common';

import type { OutboxEvent } from '../outbox/outbox-event.entity';

/**
 * How a delivery to an endpoint of a kind signed outside this module is made: its body (fixed by
 * the stored event, so every retry sends the same bytes) and its headers for one attempt. The
 * delivery, attempt, retry and 410 handling stay WebhookDeliveriesService's.
 */
export interface EndpointKindSigner {
  body(event: OutboxEvent): string;
  headers(input: { url: string; eventId: string; body: string; at: Date }): Record<string, string>;
}

/** Signers registered by other modules at boot (src/ucp/orders registers `ucp_order`). */
@Injectable()
export class EndpointKindSigners {
  private readonly signers = new Map<string, EndpointKindSigner>();

  register(kind: string, signer: EndpointKindSigner): void {
    this.signers.set(kind, signer);
  }

  get(kind: string): EndpointKindSigner | undefined {
    return this.signers.get(kind);
  }
}
