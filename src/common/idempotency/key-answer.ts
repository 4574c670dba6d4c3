import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

import type { Tx } from '../../database/tx';

/**
 * The Idempotency-Key's place for an answer that a later transaction makes final (an AfterCommit
 * answer, docs/architecture.md "Transactions"): the interceptor makes one per claimed key and
 * hands it to the route as its `@KeyAnswer()` parameter; the route passes it on (a payment keeps it
 * on its PaymentAttempt), and the transaction that makes the answer final stores it with its own
 * commit (`storeWithin`). The interceptor then has nothing left to write (`stored`).
 */
export class KeyAnswerStore {
  private storedByCommit = false;

  constructor(
    private readonly tx: Tx,
    private readonly queue: (answer: unknown) => Promise<unknown>,
  ) {}

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
