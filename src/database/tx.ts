import { AsyncLocalStorage } from 'node:async_hooks';
import type { Writable } from 'node:stream';

import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';

import { CarryingClient, QueryArgs, queryCarrying } from './carried';
import { nameOf } from './prepared';

interface TxState {
  manager: EntityManager;
  afterCommit: (() => unknown)[];
  /** Second-phase work (`continueAfterCommit`), awaited by the outermost `run` after commit. */
  continuations: (() => Promise<unknown>)[];
  /** Rows queued by `writeBeforeCommit`, in the order they were queued. */
  batched: BatchedRow[];
}

/**
 * One data-modifying SQL statement (INSERT, UPDATE or DELETE, no RETURNING needed) with its
 * parameters `$1…$n`. Statements queued for the commit are sent together as one statement
 * (`WITH w1 AS (…), w2 AS (…) SELECT 1`), so: no `$` in the text other than parameters, no
 * trailing semicolon, and no two queued statements may touch the same row (they run on one
 * snapshot, in no set order).
 */
export interface QueuedStatement {
  sql: string;
  params: unknown[];
}

/**
 * The statement that writes a batch of rows of one kind (e.g. one multi-row INSERT). Called just
 * before commit with every row queued under its name, oldest first.
 */
export type BatchWriter<T> = (rows: T[]) => QueuedStatement;

interface BatchedRow {
  name: string;
  row: unknown;
  write: BatchWriter<unknown>;
}

/**
 * An answer that is final only once the transaction that produced it has committed and more work
 * has run outside any transaction (docs/architecture.md "Transactions"): a payment records its
 * intent `processing` and commits, the rail is called with no transaction open, and a second short
 * transaction settles it. Whoever owns the outermost transaction (the idempotency interceptor, a
 * page controller) calls `finished(value)` after `run` returned, and answers with the result.
 */
export class AfterCommit<T> {
  constructor(private readonly fn: () => Promise<T>) {}

  finish(): Promise<T> {
    return this.fn();
  }
}

/** A value now, or one that is final after commit (AfterCommit). */
export type Eventually<T> = T | AfterCommit<T>;

/** The final answer: an AfterCommit is finished (outside any transaction), anything else is returned. */
export function finished<T>(value: Eventually<T>): Promise<T> {
  return value instanceof AfterCommit ? value.finish() : Promise.resolve(value);
}

/**
 * Thrown (wrapping the real error) when a refusal must still commit what was written before it:
 * e.g. an approval found expired is marked `expired` and the person is told `approval_expired`.
 * Tx.run commits and then throws `error`; Tx.savepoint releases (keeps) the savepoint and
 * throws `error`, so the idempotency interceptor stores the refusal with the writes.
 */
export class RefusalKeepingWrites extends Error {
  constructor(readonly error: Error) {
    super(error.message);
  }
}

type Outcome<T> = { committed: true; value: T } | { committed: false; refusal: Error };

/** Postgres answers that mean "run the whole transaction again": deadlock, serialisation failure. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 5;

export function isRetryableConflict(err: unknown): boolean {
  const code =
    (err as { code?: unknown; driverError?: { code?: unknown } } | null)?.code ??
    (err as { driverError?: { code?: unknown } } | null)?.driverError?.code;
  return typeof code === 'string' && RETRYABLE_SQLSTATES.has(code);
}

/**
 * The one statement that writes the queued rows: one data-modifying statement per name (in the order
 * each name was first queued), combined; null when nothing was queued.
 */
function batchStatement(batched: BatchedRow[]): QueuedStatement | null {
  const byName = new Map<string, { write: BatchWriter<unknown>; rows: unknown[] }>();
  for (const { name, row, write } of batched) {
    const batch = byName.get(name);
    if (batch) {
      batch.rows.push(row);
    } else {
      byName.set(name, { write, rows: [row] });
    }
  }
  batched.length = 0;
  const statements = [...byName.values()].map(({ write, rows }) => write(rows));
  return statements.length > 0 ? combineStatements(statements) : null;
}

/**
 * Several data-modifying statements as one: each becomes a CTE of `WITH … SELECT 1`, its
 * parameters renumbered after the previous ones'. A single statement is sent as it is.
 */
export function combineStatements(statements: QueuedStatement[]): QueuedStatement {
  if (statements.length === 1) {
    return statements[0];
  }
  const params: unknown[] = [];
  let node: CombinedStep | undefined = COMBINED;
  for (const statement of statements) {
    params.push(...statement.params);
    const bySql: CombinedStep | undefined = node && stepOf(node, statement.sql);
    node = bySql && stepOf(bySql, statement.params.length);
  }
  if (node?.sql !== undefined) {
    return { sql: node.sql, params };
  }
  const sql = combinedText(statements);
  if (node) {
    node.sql = sql;
  }
  return { sql, params };
}

function combinedText(statements: QueuedStatement[]): string {
  let offset = 0;
  const parts = statements.map((statement, i) => {
    const at = offset;
    offset += statement.params.length;
    const sql = statement.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + at}`);
    return `w${i + 1} AS (${sql})`;
  });
  return `WITH ${parts.join(', ')} SELECT 1`;
}

/**
 * Combined texts already built, found by the texts and parameter counts they were built from: the
 * commit of a payment sends the same text each time without renumbering it again, and as the same
 * string, so its prepared statement's name is found without hashing it anew (prepared.ts). The
 * combinations are the code's own, a few dozen; past MAX_COMBINED_STEPS nothing more is kept.
 */
interface CombinedStep {
  next: Map<string | number, CombinedStep>;
  sql?: string;
}
const COMBINED: CombinedStep = { next: new Map() };
const MAX_COMBINED_STEPS = 10_000;
let combinedSteps = 0;

/** The step below `node` for `key`, made if missing while fewer than MAX_COMBINED_STEPS exist. */
function stepOf(node: CombinedStep, key: string | number): CombinedStep | undefined {
  let next = node.next.get(key);
  if (!next && combinedSteps < MAX_COMBINED_STEPS) {
    next = { next: new Map() };
    node.next.set(key, next);
    combinedSteps += 1;
  }
  return next;
}

/** TypeORM's view of its runner's transaction (PostgresQueryRunner: isTransactionActive, transactionDepth). */
function markTransaction(runner: QueryRunner, open: boolean): void {
  const state = runner as unknown as { isTransactionActive: boolean; transactionDepth: number };
  state.isTransactionActive = open;
  state.transactionDepth = open ? 1 : 0;
}

/**
 * One transaction's BEGIN and COMMIT on its connection, each carried by a statement of the
 * transaction instead of a round trip of its own (docs/architecture.md "Round trips"): BEGIN rides
 * with the first statement the transaction sends, whoever sends it (TypeORM or `Sql`), and COMMIT
 * with the statement that writes what was queued for the commit. A transaction that sent nothing
 * sends nothing. TypeORM is told a transaction is open, so its own calls join it and never open
 * another.
 */
class TransactionWire {
  private begun = false;
  private open = true;
  private corked = false;

  constructor(
    private readonly runner: QueryRunner,
    private readonly client: CarryingClient,
  ) {
    markTransaction(runner, true);
    // Every query of the transaction, whatever sends it, passes here (an own property shadowing
    // pg's Client.query, removed before the client goes back to the pool): the first carries BEGIN.
    const send = (Object.getPrototypeOf(client) as CarryingClient).query;
    Object.defineProperty(client, 'query', {
      configurable: true,
      writable: true,
      value: (config: unknown, values?: unknown, callback?: unknown) => {
        this.coalesce();
        if (this.begun) {
          return send.call(client, config, values, callback);
        }
        this.begun = true;
        if (
          callback !== undefined ||
          typeof (config as { submit?: unknown })?.submit === 'function'
        ) {
          // A callback or a query object of its own: BEGIN goes first, as a statement of its own.
          void (send.call(client, 'BEGIN') as Promise<unknown>).catch(() => undefined);
          return send.call(client, config, values, callback);
        }
        return queryCarrying(
          { query: (q) => send.call(client, q) },
          [config, values] as QueryArgs,
          {
            begin: true,
            commit: false,
          },
        );
      },
    });
  }

  /**
   * Statements written in one turn of the event loop's job queue (the claim and the handler's
   * first read, two statements called back to back) leave in one socket write: the connection's
   * stream is corked at the first and uncorked once the promise jobs of this turn have run.
   */
  private coalesce(): void {
    const stream = (this.client as { connection?: { stream?: Partial<Writable> } }).connection
      ?.stream;
    if (this.corked || !stream?.cork || !stream.uncork) {
      return;
    }
    this.corked = true;
    stream.cork();
    process.nextTick(() => {
      this.corked = false;
      stream.uncork?.();
    });
  }

  /** Commits, with the statement that writes the queued rows carrying COMMIT (and BEGIN if first). */
  async commit(last: QueuedStatement | null): Promise<void> {
    this.restore();
    if (last) {
      const query = { name: nameOf(last.sql), text: last.sql, values: last.params };
      const begin = !this.begun;
      this.begun = true;
      await queryCarrying(this.client, [query], { begin, commit: true });
    } else if (this.begun) {
      await this.client.query('COMMIT');
    }
    this.open = false;
    markTransaction(this.runner, false);
  }

  /** Rolls back whatever was begun (a ROLLBACK after a failed COMMIT only draws a warning). */
  async rollback(): Promise<void> {
    this.restore();
    markTransaction(this.runner, false);
    if (this.begun && this.open) {
      this.open = false;
      await (this.client.query('ROLLBACK') as Promise<unknown>).catch(() => undefined);
    }
  }

  private restore(): void {
    if (Object.prototype.hasOwnProperty.call(this.client, 'query')) {
      delete (this.client as { query?: unknown }).query;
    }
  }
}

/**
 * Ambient transactions. A request that runs inside `run` (the idempotency interceptor opens one
 * for every mutating route) makes every repository call join the same transaction, so the
 * idempotency record and the business write commit together. Code outside a transaction gets
 * the plain manager.
 *
 * The outermost `run` retries the whole function when Postgres reports a deadlock or a
 * serialisation failure (up to five attempts, with jittered backoff), so neither reaches a client.
 * The function must therefore be safe to run again: it is, because every write it made was
 * rolled back and its after-commit callbacks were dropped. Lock order: docs/architecture.md.
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
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runOnce(fn);
      } catch (err) {
        if (!isRetryableConflict(err) || attempt >= MAX_ATTEMPTS) {
          throw err;
        }
        this.logger.warn(
          { attempt, code: (err as { code?: string }).code },
          'transaction conflict; retrying',
        );
        await new Promise((r) => setTimeout(r, 5 * 2 ** attempt + Math.random() * 20));
      }
    }
  }

  private async runOnce<T>(fn: (manager: EntityManager) => Promise<T>): Promise<T> {
    const callbacks: (() => unknown)[] = [];
    const continuations: (() => Promise<unknown>)[] = [];
    const batched: BatchedRow[] = [];
    const runner = this.dataSource.createQueryRunner();
    let outcome: Outcome<T>;
    try {
      const wire = new TransactionWire(runner, (await runner.connect()) as CarryingClient);
      const manager = runner.manager;
      try {
        outcome = await this.als.run(
          { manager, afterCommit: callbacks, continuations, batched },
          async (): Promise<Outcome<T>> => {
            let result: Outcome<T>;
            try {
              result = { committed: true, value: await fn(manager) };
            } catch (err) {
              if (!(err instanceof RefusalKeepingWrites)) {
                throw err;
              }
              result = { committed: false, refusal: err.error };
            }
            // Both outcomes commit: what was queued for the commit is written by the statement
            // that carries the COMMIT.
            await wire.commit(batchStatement(batched));
            return result;
          },
        );
      } catch (err) {
        await wire.rollback();
        throw err;
      }
    } finally {
      await runner.release();
    }
    // Fire and forget: a slow or absent Redis must never hold up the response. Work that must
    // not be lost is also recorded in Postgres (outbox, approval expiry) and swept periodically.
    for (const cb of callbacks) {
      void Promise.resolve()
        .then(cb)
        .catch((err: Error) =>
          this.logger.error({ err: err.message }, 'after-commit callback failed'),
        );
    }
    // Second phase, in order and awaited, with no transaction open (each opens its own).
    for (const next of continuations) {
      try {
        await next();
      } catch (err) {
        this.logger.error({ err: (err as Error).message }, 'after-commit continuation failed');
      }
    }
    if (!outcome.committed) {
      throw outcome.refusal;
    }
    return outcome.value;
  }

  /**
   * Runs fn inside a savepoint of the ambient transaction; on failure rolls back to it (dropping
   * any after-commit callbacks fn registered) and rethrows. A RefusalKeepingWrites keeps the
   * savepoint's writes and rethrows the refusal it carries.
   */
  async savepoint<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const state = this.als.getStore();
    if (!state) {
      return fn();
    }
    const mark = state.afterCommit.length;
    const continuationMark = state.continuations.length;
    const batchMark = state.batched.length;
    await state.manager.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      await state.manager.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      if (err instanceof RefusalKeepingWrites) {
        await state.manager.query(`RELEASE SAVEPOINT ${name}`);
        throw err.error;
      }
      await state.manager.query(`ROLLBACK TO SAVEPOINT ${name}`);
      state.afterCommit.length = mark;
      state.continuations.length = continuationMark;
      state.batched.length = batchMark;
      throw err;
    }
  }

  /**
   * Work that must not run inside a transaction (a call to the payment rail) but that the request
   * waits for: registered inside a transaction, it runs after the outermost one commits, with no
   * transaction open, and `run` returns only once it has finished. Dropped with a rolled-back or
   * retried attempt (or savepoint), like afterCommit. An error is logged, not thrown: such work is
   * recorded in Postgres before commit and a sweep finishes it if this does not (the payments
   * reconciler). Outside a transaction it runs at once and is awaited.
   */
  async continueAfterCommit(cb: () => Promise<unknown>): Promise<void> {
    const state = this.als.getStore();
    if (state) {
      state.continuations.push(cb);
      return;
    }
    await cb();
  }

  /**
   * Queues `row` to be written in this transaction just before it commits, together with every
   * other row queued under the same `name`, by the one statement `write` returns; the statements of
   * all names are then sent as one (`combineStatements`). So a request pays one statement for its
   * audit rows and its idempotency answer (`AuditLog.record`, `IdempotencyInterceptor`) however
   * many there are. The rows are written only if the transaction commits (a RefusalKeepingWrites
   * commits too), are dropped with a rolled-back attempt or savepoint, and are not visible to
   * reads inside the transaction before the commit; a failing write fails the commit. Outside a
   * transaction the one row is written at once. Returns true when queued.
   */
  async writeBeforeCommit<T>(name: string, row: T, write: BatchWriter<T>): Promise<boolean> {
    const state = this.als.getStore();
    if (!state) {
      const { sql, params } = write([row]);
      await this.dataSource.manager.query(sql, params);
      return false;
    }
    state.batched.push({ name, row, write: write as BatchWriter<unknown> });
    return true;
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
      .catch((err: Error) =>
        this.logger.error({ err: err.message }, 'after-commit callback failed'),
      );
  }
}
