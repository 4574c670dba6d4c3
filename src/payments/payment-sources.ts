import { Injectable } from '@nestjs/common';

import type { IntentSourceKind, PaymentIntent } from './entities/payment-intent.entity';

/**
 * What a payment source (checkout session, quote, hosted checkout) does when its intent reaches
 * an outcome after the request that created it (a person approved, denied, or the approval
 * expired). Sources register at module init; the pipeline calls them in its transaction.
 */
export interface PaymentSourceHandler {
  /**
   * Lock the source row (SELECT … FOR NO KEY UPDATE), first in the lock order
   * (docs/architecture.md). With skipLocked, a row another transaction holds is not waited for.
   * Resolves true when the row was found and locked.
   */
  lock(sourceId: string, opts?: { skipLocked?: boolean }): Promise<boolean>;
  onSettled(intent: PaymentIntent): Promise<void>;
  onDeclined(intent: PaymentIntent): Promise<void>;
}

@Injectable()
export class PaymentSources {
  private readonly handlers = new Map<IntentSourceKind, PaymentSourceHandler>();

  register(kind: IntentSourceKind, handler: PaymentSourceHandler): void {
    this.handlers.set(kind, handler);
  }

  get(kind: IntentSourceKind): PaymentSourceHandler | null {
    return this.handlers.get(kind) ?? null;
  }
}
