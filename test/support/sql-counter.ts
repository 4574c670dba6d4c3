import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

import type { DataSource } from 'typeorm';

import { carriesOf } from '../../src/database/carried';
import type { TestApp } from './app';

/** One SQL statement the app sent to Postgres while serving a request. */
export interface CountedStatement {
  /** The SQL text as sent (parameters are not recorded: they may hold secrets). */
  sql: string;
  /** Sent as a named prepared statement (`{ name, text, values }`: src/database/prepared.ts). */
  prepared: boolean;
}

/** What one HTTP request sent to Postgres, from the moment it arrived until its response finished. */
export interface RequestStatements {
  method: string;
  path: string;
  statements: CountedStatement[];
}

type PgQuery = (this: unknown, ...args: unknown[]) => unknown;

/** Statements of one pg client written and not yet answered. */
const IN_FLIGHT = Symbol('sql-counter in flight');
type InFlight = { [IN_FLIGHT]?: number };

/**
 * Calls `done` once the query `Client.query` returned is answered: its promise, or the callback of
 * a query object (src/database/carried.ts). Returns what `Client.query` returned, untouched.
 */
function whenAnswered(returned: unknown, done: () => void): unknown {
  if (returned instanceof Promise) {
    returned.then(done, done);
    return returned;
  }
  const q = returned as { callback?: (...a: unknown[]) => unknown } | null;
  if (q && typeof q.callback === 'function') {
    const callback = q.callback;
    q.callback = (...a: unknown[]) => {
      done();
      return callback(...a);
    };
  } else {
    done();
  }
  return returned;
}

interface Recording {
  method: string;
  path: string;
  statements: CountedStatement[];
  /** Messages sent to Postgres and answered: one per `Client.query` call (one Sync each). */
  roundTrips: number;
  /** Set when the response finished: statements after it are not the request's. */
  done: boolean;
}

/**
 * Counts the SQL statements each HTTP request makes (docs/testing.md "Tests": "SQL budgets").
 *
 * Every call of `query` on a pg `Client` (the pool's clients TypeORM uses, so BEGIN, COMMIT,
 * SAVEPOINT … are counted like any other statement) is attributed to the HTTP request in whose
 * async context it was made: the app's server `request` listeners are wrapped in an
 * AsyncLocalStorage, so statements of sweeps, Bull workers, the LISTEN connection and the test's
 * own `t.db.query` calls are never counted, whatever runs meanwhile. A request's count ends when its
 * response has been sent (`finish`); fire-and-forget work after that is not the request's.
 *
 * One round trip is one statement here: a multi-statement text would count once, so none is used
 * on the paths budgeted by test/e2e/sql-budget.e2e-spec.ts.
 */
export class SqlCounter {
  private readonly als = new AsyncLocalStorage<Recording>();
  private readonly recordings: Recording[] = [];
  private restore: (() => void)[] = [];

  private constructor() {}

  /** Starts counting on a started test app; call `uninstall` in afterAll. */
  static install(t: TestApp): SqlCounter {
    const counter = new SqlCounter();
    counter.patchClient(t.db);
    counter.wrapServer(t.app.getHttpServer());
    return counter;
  }

  /** Counting of service calls only (`measureCall`), for tests that count no HTTP request. */
  static forCalls(db: DataSource): SqlCounter {
    const counter = new SqlCounter();
    counter.patchClient(db);
    return counter;
  }

  /** Requests seen so far, oldest first. */
  get requests(): RequestStatements[] {
    return this.recordings.map(({ method, path, statements }) => ({
      method,
      path,
      statements: [...statements],
    }));
  }

  /** Forgets the requests recorded so far. */
  reset(): void {
    this.recordings.length = 0;
  }

  /**
   * Runs `send` (one HTTP request to the app) and returns its response with the statements that
   * request made. Fails if `send` caused no request, or more than one.
   */
  async measure<R>(
    send: () => Promise<R>,
  ): Promise<{ response: R; statements: string[]; unprepared: string[]; roundTrips: number }> {
    const before = this.recordings.length;
    const response = await send();
    const seen = this.recordings.slice(before);
    if (seen.length !== 1) {
      throw new Error(`expected exactly one HTTP request, saw ${seen.length}`);
    }
    const [recording] = seen;
    // supertest resolves once the body arrived; `finish` fired before the last byte was written.
    if (!recording.done) {
      await new Promise((r) => setImmediate(r));
    }
    return {
      response,
      statements: recording.statements.map((s) => s.sql),
      unprepared: recording.statements.filter((s) => !s.prepared).map((s) => s.sql),
      roundTrips: recording.roundTrips,
    };
  }

  /**
   * Runs `fn` (a call into the app's services, not over HTTP) and returns its result with the
   * statements it made, BEGIN and COMMIT of its own transactions included.
   */
  async measureCall<R>(fn: () => Promise<R>): Promise<{ result: R; statements: string[] }> {
    const recording: Recording = {
      method: 'CALL',
      path: '',
      statements: [],
      roundTrips: 0,
      done: false,
    };
    const result = await this.als.run(recording, fn);
    recording.done = true;
    return { result, statements: recording.statements.map((s) => s.sql) };
  }

  uninstall(): void {
    for (const undo of this.restore.reverse()) {
      undo();
    }
    this.restore = [];
  }

  private patchClient(db: DataSource): void {
    // The pg module TypeORM loaded (its PostgresDriver keeps it as `postgres`).
    const pg = (db.driver as unknown as { postgres: { Client: { prototype: { query: PgQuery } } } })
      .postgres;
    const proto = pg.Client.prototype;
    const original = proto.query;
    const als = this.als;
    proto.query = function countedQuery(this: unknown, ...args: unknown[]): unknown {
      const recording = als.getStore();
      if (recording && !recording.done) {
        // A statement that carries its transaction's BEGIN or COMMIT (src/database/carried.ts) is
        // one round trip of up to three statements, each counted.
        const carries = carriesOf(args[0]);
        if (carries?.begin) {
          recording.statements.push({ sql: 'BEGIN', prepared: false });
        }
        recording.statements.push({ sql: sqlText(args[0]), prepared: isNamed(args[0]) });
        if (carries?.commit) {
          recording.statements.push({ sql: 'COMMIT', prepared: false });
        }
        // A round trip is a statement written while nothing else of this connection is in
        // flight: one written behind another, before its answer came, shares its wait.
        const client = this as InFlight;
        if (!client[IN_FLIGHT]) {
          recording.roundTrips += 1;
        }
        client[IN_FLIGHT] = (client[IN_FLIGHT] ?? 0) + 1;
        return whenAnswered(original.apply(this, args), () => {
          client[IN_FLIGHT] = (client[IN_FLIGHT] ?? 1) - 1;
        });
      }
      return original.apply(this, args);
    };
    this.restore.push(() => {
      proto.query = original;
    });
  }

  private wrapServer(server: Server): void {
    const listeners = server.listeners('request') as ((
      req: IncomingMessage,
      res: ServerResponse,
    ) => void)[];
    server.removeAllListeners('request');
    const wrapped = (req: IncomingMessage, res: ServerResponse) => {
      const recording: Recording = {
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0],
        statements: [],
        roundTrips: 0,
        done: false,
      };
      this.recordings.push(recording);
      res.once('finish', () => {
        recording.done = true;
      });
      this.als.run(recording, () => {
        for (const listener of listeners) {
          listener.call(server, req, res);
        }
      });
    };
    server.on('request', wrapped);
    this.restore.push(() => {
      server.removeListener('request', wrapped);
      for (const listener of listeners) {
        server.on('request', listener);
      }
    });
  }
}

/**
 * The statement for a report: TypeORM's column lists (`SELECT "T"."a" AS "T_a", …`) shortened to
 * `SELECT T.*`, so a list of statements stays readable.
 */
export function shortSql(sql: string): string {
  return sql.replace(/^SELECT ("(\w+)"\."\w+" AS "\w+"(, )?)+ FROM/, 'SELECT $2.* FROM');
}

function sqlText(arg: unknown): string {
  if (typeof arg === 'string') {
    return oneLine(arg);
  }
  const text = (arg as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? oneLine(text) : '<non-text query>';
}

function isNamed(arg: unknown): boolean {
  return typeof (arg as { name?: unknown } | null)?.name === 'string';
}

function oneLine(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim();
}
