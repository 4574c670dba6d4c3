import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

import type { Tx } from '../../database/tx';

/**
 * The payment on a request's Idempotency-Key (docs/security.md "Idempotency"): the intent the
 * request recorded is kept on the key with its first transaction's commit, so a retry that takes
 * the key over after its holder died (the process or Postgres, between the payment's two
 * transactions) answers that payment's state instead of paying again.
 */
export interface KeyPayment {
  /**
   * The intent the key's first run recorded before it died, when this request took the key over;
   * null for a key claimed afresh. Settles once the key's claim is known.
   */
  readonly resumed: Promise<string | null>;
  /** pay(): the intent this request recorded (kept on the key by its transaction's commit). */
  note(intentId: string): void;
  /**
   * The source, finishing its answer: the payment is still in progress (the rail has not answered).
   * Such an answer is never stored on a key that names its payment: the key stays resumable, so a
   * retry answers the payment's state then (docs/security.md "A retry after a 503 or a crash").
   */
  unfinished(): void;
}

/**
 * The Idempotency-Key's place for an answer that a later transaction makes final (an AfterCommit
 * answer, docs/architecture.md "Transactions"): the interceptor makes one per claimed key and
 * hands it to the route as its `@KeyAnswer()` parameter; the route passes it on (a payment keeps it
 * on its PaymentAttempt), and the transaction that makes the answer final stores it with its own
 * commit (`storeWithin`). The interceptor then has nothing left to write (`stored`).
 */
export class KeyAnswerStore {
  private storedByCommit = false;
  private noted: string | null = null;
  private resumedId: string | null = null;
  private inProgress = false;
  private settleResumed!: (intentId: string | null) => void;
  private readonly resumedIntent = new Promise<string | null>((resolve) => {
    this.settleResumed = resolve;
  });

  /**
   * The payment on this key (KeyPayment above): `resumed` once the interceptor knows
   * the claim; `note` by pay() when it records the intent, kept on the key by the interceptor with
   * the commit of a first transaction whose answer is finished after commit.
   */
  readonly payment: KeyPayment = {
    resumed: this.resumedIntent,
    note: (intentId) => {
      this.noted = intentId;
    },
    unfinished: () => {
      this.inProgress = true;
    },
  };

  constructor(
    private readonly tx: Tx,
    private readonly queue: (answer: unknown) => Promise<unknown>,
  ) {}

  /** The interceptor, once the claim is known: the payment a taken-over key names, else null. */
  claimKnown(resumedIntentId: string | null): void {
    this.resumedId = resumedIntentId;
    this.settleResumed(resumedIntentId);
  }

  /** The payment this key names: recorded by this request, or by the run it took over. */
  get keyPayment(): string | null {
    return this.noted ?? this.resumedId;
  }

  /** True when the answer is the payment still in progress (`payment.unfinished`). */
  get unfinished(): boolean {
    return this.inProgress;
  }

  /** The intent pay() recorded in this request's transaction, if any. */
  get notedPayment(): string | null {
    return this.noted;
  }

  /** Inside the transaction that makes `answer` final: stored by its commit (dropped on rollback). */
  async storeWithin(answer: unknown): Promise<void> {
    await this.queue(answer);
    this.tx.afterCommit(() => {
      this.storedByCommit = true;
    });
  }

  /** True once a committed transaction stored the answer. */
  get stored(): boolean {
    return this.storedByCommit;
  }
}

const KEY_ANSWER = Symbol('key-answer');

/** The interceptor: the store of the request it is about to hand to the route. */
export function setKeyAnswer(req: Request, store: KeyAnswerStore): void {
  (req as unknown as Record<symbol, KeyAnswerStore>)[KEY_ANSWER] = store;
}

/** The request's KeyAnswerStore, or null (no Idempotency-Key, or a route outside the interceptor). */
export function keyAnswerOf(req: Request): KeyAnswerStore | null {
  return (req as unknown as Record<symbol, KeyAnswerStore | undefined>)[KEY_ANSWER] ?? null;
}

/** Route parameter: the request's KeyAnswerStore, or null without an Idempotency-Key. */
export const KeyAnswer = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): KeyAnswerStore | null =>
    keyAnswerOf(ctx.switchToHttp().getRequest<Request>()),
);
