import { Query } from 'pg';

/**
 * What a statement carries on the wire with it (docs/architecture.md "Transactions", "Round trips"):
 * its transaction's BEGIN before it, its transaction's COMMIT after it, or both.
 */
export interface Carries {
  begin: boolean;
  commit: boolean;
}

/** A pg query as `Client.query` takes it: text and values, or `{ name?, text, values? }`. */
export type QueryArgs = [config: unknown, values?: unknown];

/** The pg connection calls a query makes while it writes itself (pg/lib/connection.js). */
interface PgConnection {
  parse(msg: { text: string; name: string; types?: unknown[] }): void;
  bind(msg: { portal: string; statement: string; values: unknown[] }): void;
  execute(msg: { portal: string; rows?: number }): void;
  sync(): void;
}

/** The client the pool lends: pg's Client (or PoolClient). */
export interface CarryingClient {
  query: (q: unknown, values?: unknown, callback?: unknown) => unknown;
}

/** pg's Query with the two internals this file overrides (pg/lib/query.js; not in @types/pg). */
interface PgQueryInternals {
  handleCommandComplete(msg: unknown, connection: PgConnection): void;
  _getRows(connection: PgConnection, rows?: number): void;
  prepare(connection: PgConnection): void;
}

/** A statement of no parameters sent unnamed in the extended protocol: BEGIN, COMMIT. */
function sendBare(connection: PgConnection, text: string): void {
  connection.parse({ text, name: '' });
  connection.bind({ portal: '', statement: '', values: [] });
  connection.execute({ portal: '' });
}

/**
 * One statement with its transaction's BEGIN and/or COMMIT in the same message group: Parse/Bind/
 * Execute of BEGIN, the statement's own messages, Parse/Bind/Execute of COMMIT, then one Sync. So
 * one round trip instead of up to three, and the statement runs only if BEGIN did (within one Sync,
 * Postgres skips everything after an error): it can never run outside its transaction. If the
 * statement fails, COMMIT is skipped too and the transaction stays open, aborted, for the caller's
 * ROLLBACK. BEGIN's and COMMIT's own results are not the statement's: they are left out of its rows.
 */
class CarryingQuery extends Query {
  private completes = 0;

  constructor(
    config: unknown,
    values: unknown,
    readonly carries: Carries,
    callback: (err: Error | undefined, result: unknown) => void,
  ) {
    super(
      // The extended protocol even for a text without values, so BEGIN and COMMIT can ride with it.
      { ...normalised(config, values), queryMode: 'extended' } as never,
      callback as never,
    );
  }

  prepare(connection: PgConnection): void {
    if (this.carries.begin) {
      sendBare(connection, 'BEGIN');
    }
    (Query.prototype as unknown as PgQueryInternals).prepare.call(this, connection);
  }

  _getRows(connection: PgConnection, rows?: number): void {
    connection.execute({ portal: (this as unknown as { portal: string }).portal, rows });
    if (this.carries.commit) {
      sendBare(connection, 'COMMIT');
    }
    connection.sync();
  }

  handleCommandComplete(msg: unknown, connection: PgConnection): void {
    const own = this.carries.begin ? 1 : 0;
    if (this.completes++ === own) {
      (Query.prototype as unknown as PgQueryInternals).handleCommandComplete.call(
        this,
        msg,
        connection,
      );
    }
  }
}

function normalised(config: unknown, values: unknown): Record<string, unknown> {
  if (typeof config === 'string') {
    return { text: config, values };
  }
  const c = config as Record<string, unknown>;
  return values === undefined ? { ...c } : { ...c, values };
}

/**
 * Sends one statement on `client` carrying its transaction's BEGIN and/or COMMIT (one round trip),
 * and resolves to pg's result as `client.query` would. `Client.query` itself is called (with the
 * query object), so whatever wraps it still sees one statement (test/support/sql-counter.ts).
 */
export function queryCarrying(
  client: CarryingClient,
  [config, values]: QueryArgs,
  carries: Carries,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const q = new CarryingQuery(config, values, carries, (err, result) =>
      err ? reject(err) : resolve(result),
    );
    client.query(q);
  });
}

/** What a query object carries, if it is one of this file's (test/support/sql-counter.ts counts it). */
export function carriesOf(q: unknown): Carries | null {
  return q instanceof CarryingQuery ? q.carries : null;
}
