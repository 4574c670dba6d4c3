import type { KeyPayment } from '../common/idempotency/key-answer';
import type { Tx } from '../database/tx';
import type { IntentSourceKind, PaymentIntent } from './entities/payment-intent.entity';

/** The row a payment is for: a checkout session, a quote, a hosted checkout or a recurring charge. */
export interface PaymentSourceRef {
  kind: IntentSourceKind;
  id: string;
}

/**
 * Where a request keeps its answer on its Idempotency-Key (the interceptor's `KeyAnswer`): queued
 * with the commit of the transaction that makes the answer final.
 */
export interface AnswerStore {
  storeWithin(answer: unknown): Promise<void>;
  /** The payment kept on the key (absent when the store does not keep one): KeyPayment, key-answer.ts. */
  readonly payment?: KeyPayment;
}

/**
 * One payment on its way through the pipeline (docs/architecture.md "The walk of a rupee"), passed
 * and returned, never looked up: the source that asks for a payment creates it (`start`) and hands
 * it to `pay()`, which records the intent on it; the rail step carries it (`debitOnRail` →
 * `applyDebit` → `settle`) to the source's `onSettled` / `onDeclined`. It holds the source row the
 * running transaction locked (so the source does not read it again) and, for a request that waits
 * for the payment's end, the answer the transaction that ends it made final.
 *
 * A payment taken up later (the reconciler, a gateway event, the settlement report, a person's
 * decision) is a new attempt on the recorded intent (`resume`, `ofIntent`): nobody waits for it.
 */
export class PaymentAttempt<Row = unknown, Answer = unknown> {
  private recordedIntent: PaymentIntent | null;
  private seller: string | null = null;
  private lockedRow: Row | null = null;
  private final: { answer: Answer } | null = null;

  private constructor(
    private knownSource: PaymentSourceRef | null,
    private readonly knownIntentId: string | null,
    intent: PaymentIntent | null,
    /** Set when a request waits for this attempt's answer; `store` is its Idempotency-Key's. */
    private readonly waiting: { store: AnswerStore | null } | null,
  ) {
    this.recordedIntent = intent;
  }

  /**
   * A new payment of `source`, for `pay()`. `waiting` when the request that starts it answers with
   * the payment's end (the source's handler then gives the answer, `answerWith`); its `store` is
   * where the request keeps that answer on its Idempotency-Key (null without a key).
   */
  static start<Row, Answer>(
    source: PaymentSourceRef,
    waiting?: { store: AnswerStore | null },
  ): PaymentAttempt<Row, Answer> {
    return new PaymentAttempt<Row, Answer>(source, null, null, waiting ?? null);
  }

  /** An intent recorded earlier, as it was read or committed, taken up again. */
  static resume(intent: PaymentIntent): PaymentAttempt {
    return new PaymentAttempt(
      { kind: intent.sourceKind, id: intent.sourceId },
      intent.id,
      intent,
      null,
    );
  }

  /**
   * A payment recorded by an earlier run of the same request (its Idempotency-Key's `resumed`),
   * taken up by the retry, which waits for its end as the first run did: the source's handler gives
   * the answer (`answerWith`), stored on the key through `store`.
   */
  static resumeAwaited<Row, Answer>(
    source: PaymentSourceRef,
    intentId: string,
    waiting: { store: AnswerStore | null },
  ): PaymentAttempt<Row, Answer> {
    return new PaymentAttempt<Row, Answer>(source, intentId, null, waiting);
  }

  /** Only the intent's id is known (a gateway event's subject): the pipeline reads the rest. */
  static ofIntent(intentId: string, source?: PaymentSourceRef): PaymentAttempt {
    return new PaymentAttempt(source ?? null, intentId, null, null);
  }

  /** The source, once known (from `start`, the intent, or the pipeline's read of it). */
  get source(): PaymentSourceRef | null {
    return this.knownSource;
  }

  get intentId(): string {
    const id = this.recordedIntent?.id ?? this.knownIntentId;
    if (id === null) {
      throw new Error('no intent recorded on this payment attempt yet');
    }
    return id;
  }

  /** The intent as this attempt last recorded or read it, or null when only its id is known. */
  get intent(): PaymentIntent | null {
    return this.recordedIntent;
  }

  /** The seller's name, read by pay() with the buyer's lock (for the waiting request's answer). */
  get sellerName(): string | null {
    return this.seller;
  }

  /** The source row the running transaction locked, when its source returns one. */
  get locked(): Row | null {
    return this.lockedRow;
  }

  /** Whether a request waits for this attempt's answer (the source's handler then gives it). */
  get awaited(): boolean {
    return this.waiting !== null;
  }

  /** The answer made final by the transaction that ended the payment, once it committed. */
  get answer(): Answer | null {
    return this.final?.answer ?? null;
  }

  /** pay(): the intent as recorded, and the seller's name it read. */
  recorded(intent: PaymentIntent, sellerName: string): void {
    this.waiting?.store?.payment?.note(intent.id);
    this.recordedIntent = intent;
    this.seller = sellerName;
    this.knownSource = { kind: intent.sourceKind, id: intent.sourceId };
  }

  /** The pipeline: the intent read when only its id was known. */
  read(intent: PaymentIntent): void {
    this.recordedIntent = intent;
    this.knownSource = { kind: intent.sourceKind, id: intent.sourceId };
  }

  /** The pipeline: the source row its transaction locked (null when it found none). */
  lockedSource(row: Row | null): void {
    this.lockedRow = row;
  }

  /**
   * The source's handler, in the transaction that ends the payment: `answer` is the waiting
   * request's answer. It is stored on the request's Idempotency-Key by that transaction's commit
   * and handed over once it committed (a rolled-back attempt drops both).
   */
  async answerWith(tx: Tx, answer: Answer): Promise<void> {
    if (!this.waiting) {
      return;
    }
    await this.waiting.store?.storeWithin(answer);
    tx.afterCommit(() => {
      this.final = { answer };
    });
  }
}
