import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { render, SqlFragment, textOf } from './fragment';
import { nameOf, PgClient, queryPrepared } from './prepared';
import { Tx } from './tx';

/**
 * One hand-written statement with its values, typed by the row it returns (docs/architecture.md
 * "Table owners"). Defined in its table's owning repository file; `R` is only a type.
 */
export interface Statement<R> {
  text: string;
  values: unknown[];
  /** Never set: carries the row type from where the statement is defined to `Sql.rows`. */
  readonly row?: R;
}

/**
 * A statement's text as a function of its values: `const lock = statement<Row, [string]>('…')`. Built
 * from SQL parts, the text is a fragment holding no value (`textOf`), its own values written `$n`.
 */
export function statement<R, P extends unknown[]>(
  text: string | SqlFragment,
): (...values: P) => Statement<R> {
  const t = typeof text === 'string' ? text : textOf(text);
  return (...values: P) => ({ text: t, values });
}

/**
 * A statement whose text is built from SQL parts (`src/database/fragment.ts`): the fragment's values
 * are its bind parameters, numbered in order. The same shape gives the same text, so one prepared
 * statement per shape: `const lock = fragmentStatement<Row, [string]>((id) => sql\`…${id}…\`)`.
 */
export function fragmentStatement<R, P extends unknown[]>(
  build: (...values: P) => SqlFragment,
): (...values: P) => Statement<R> {
  return (...values: P) => render(build(...values));
}

/** `manager.query` of a statement built from SQL parts: the fragment rendered with its values. */
export function queryFragment<R>(manager: EntityManager, fragment: SqlFragment): Promise<R> {
  const { text, values } = render(fragment);
  return manager.query<R>(text, values);
}

/** One statement from a fragment, typed by its row. */
export function query<R>(fragment: SqlFragment): Statement<R> {
  return render(fragment);
}

/**
 * Sends hand-written statements through the ambient transaction's connection as named prepared
 * statements (`queryPrepared`): Postgres parses and plans each text once per connection, and later
 * executions send only the name and the values (bench/README.md "Benchmark": the money path's statements).
 * The name is a hash of the text, so one text always has one name and no two texts share one.
 * Outside a transaction a pooled connection is taken for the one statement. Behind PgBouncer in
 * transaction mode named statements need its prepared-statement support (docs/operations.md "Running more
 * than one instance").
 */
@Injectable()
export class Sql {
  constructor(
    private readonly tx: Tx,
    private readonly dataSource: DataSource,
  ) {}

  async rows<R>(st: Statement<R>): Promise<R[]> {
    if (this.tx.active) {
      return (await queryPrepared(this.tx.manager, st.text, st.values)) as R[];
    }
    const own = this.dataSource.createQueryRunner();
    try {
      const client = (await own.connect()) as PgClient;
      return (await client.query({ name: nameOf(st.text), text: st.text, values: st.values }))
        .rows as R[];
    } finally {
      await own.release();
    }
  }

  /** The first row, or null. */
  async one<R>(st: Statement<R>): Promise<R | null> {
    return (await this.rows(st))[0] ?? null;
  }
}
