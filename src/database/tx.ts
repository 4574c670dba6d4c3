import { Injectable, Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager } from 'typeorm';

interface TxState {
  manager: EntityManager;
  afterCommit: (() => unknown)[];
}

/**
 * Ambient transactions. A request that runs inside `run` (the idempotency interceptor opens one
 * for every mutating route) makes every repository call join the same transaction, so the
 * idempotency record and the business write commit together. Code outside a transaction gets
 * the plain manager.
 */
@Injectable()
export class Tx {
  private readonly als = new AsyncLocalStorage<TxState>();
  private readonly logger = new Logger(Tx.name);

  constructor(private readonly dataSource: DataSource) {}

  get manager(): EntityManager {
    return this.als.getStore()?.manager ?? this.dataSource.manager;
  }

  get active(): boolean {
    return this.als.getStore() !== undefined;
  }

  /** Runs fn in the ambient transaction, or in a new one that commits when fn resolves. */
  async run<T>(fn: (manager: EntityManager) => Promise<T>): Promise<T> {
    const current = this.als.getStore();
    if (current) {
      return fn(current.manager);
    }
    const callbacks: (() => unknown)[] = [];
    const result = await this.dataSource.transaction((manager) =>
      this.als.run({ manager, afterCommit: callbacks }, () => fn(manager)),
    );
    // Fire and forget: a slow or absent Redis must never hold up the response. Work that must
    // not be lost is also recorded in Postgres (outbox, approval expiry) and swept periodically.
    for (const cb of callbacks) {
      void Promise.resolve()
        .then(cb)
        .catch((err: Error) => this.logger.error({ err: err.message }, 'after-commit callback failed'));
    }
    return result;
  }

  /**
   * Runs fn inside a savepoint of the ambient transaction; on failure rolls back to it (dropping
   * any after-commit callbacks fn registered) and rethrows.
   */
  async savepoint<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const state = this.als.getStore();
    if (!state) {
      return fn();
    }
    const mark = state.afterCommit.length;
    await state.manager.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      await state.manager.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      await state.manager.query(`ROLLBACK TO SAVEPOINT ${name}`);
      state.afterCommit.length = mark;
      throw err;
    }
  }

  /** Defers side effects (queue jobs, notifications) until the transaction commits. */
  afterCommit(cb: () => unknown): void {
    const state = this.als.getStore();
    if (state) {
      state.afterCommit.push(cb);
      return;
    }
    void Promise.resolve()
      .then(cb)
      .catch((err: Error) => this.logger.error({ err: err.message }, 'after-commit callback failed'));
  }
}
