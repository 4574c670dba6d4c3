import { Injectable } from '@nestjs/common';

import type { QueuedStatement } from '../database/tx';
import type { IntentSourceKind, PaymentIntent } from './entities/payment-intent.entity';
import type { PaymentAttempt } from './payment-attempt';

/**
 * What a payment source (checkout session, quote, hosted checkout, recurring charge) does when
 * its intent reaches an outcome: right after the rail answered, or later (a person approved,
 * denied, or the approval expired). Sources register at module init; the pipeline calls them in
 * its transaction, with the PaymentAttempt that holds the row `lock` returned.
 */
export interface PaymentSourceHandler<Row = unknown, Answer = unknown> {
  /**
   * Lock the source row (SELECT … FOR NO KEY UPDATE), first in the lock order
   * (docs/architecture.md). With skipLocked, a row another transaction holds is not waited for.
   * Resolves to the locked row, or null when it was not found (or not locked).
   */
  lock(sourceId: string, opts?: { skipLocked?: boolean }): Promise<Row | null>;
  /**
   * For a source that is one row: its lock as one `SELECT * … FOR NO KEY UPDATE` statement, which
   * the pipeline sends together with the intent's lock (the source first: PaymentIntentRepository
   * `lockAfter`), and `adopt`, which turns the locked row (as row_to_json gives it) into what
   * `lock` would have returned. Without it the pipeline calls `lock`.
   */
  lockStatement?: {
    sql(sourceId: string): QueuedStatement;
    adopt(row: Record<string, unknown>): Row;
  };
  onSettled(intent: PaymentIntent, attempt: PaymentAttempt<Row, Answer>): Promise<void>;
  onDeclined(intent: PaymentIntent, attempt: PaymentAttempt<Row, Answer>): Promise<void>;
}

@Injectable()
export class PaymentSources {
  private readonly handlers = new Map<IntentSourceKind, PaymentSourceHandler>();

  register<Row, Answer = unknown>(
    kind: IntentSourceKind,
    handler: PaymentSourceHandler<Row, Answer>,
  ): void {
    // Each handler only ever meets attempts whose row its own `lock` returned and whose answer,
    // when one is awaited, is the one its source's request started them with.
    this.handlers.set(kind, handler);
  }

  get(kind: IntentSourceKind): PaymentSourceHandler | null {
    return this.handlers.get(kind) ?? null;
  }
}
