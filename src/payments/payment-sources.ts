import { Injectable } from '@nestjs/common';

import type { QueuedStatement } from '../database/tx';
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
  /**
   * For a source that is one row: its lock as one `SELECT * … FOR NO KEY UPDATE` statement, which
   * the pipeline sends together with the intent's lock (the source first: PaymentIntentRepository
   * `lockAfter`), and `adopt`, which is handed the locked row (as row_to_json gives it) in place
   * of what `lock` would have read. Without it the pipeline calls `lock`.
   */
  lockStatement?: {
    sql(sourceId: string): QueuedStatement;
    adopt(row: Record<string, unknown>): void;
  };
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
