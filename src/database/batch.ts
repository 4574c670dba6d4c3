import type { QueuedStatement } from './tx';

/**
 * One way to write a batch of rows (docs/architecture.md "Writes at commit"): the columns are named
 * once, each with its SQL type and how a row gives its value, and the statement sends one array
 * per column through `unnest(…)`, so its text is the same for any number of rows but one (below).
 * jsonb and timestamptz travel as text and are cast back; Dates and objects are
 * turned into ISO text and JSON here (`json_text`: a jsonb column whose value is JSON text already).
 *
 * One row, the usual case, is written without `unnest`: `VALUES ($1::text, …)` and `UPDATE … WHERE
 * key = $1`. Postgres cannot know how many rows an `unnest` of a parameter yields, so its generic
 * plan assumes several and costs more than a plan made for the one row at hand: it then planned
 * the statement afresh on every call (the commit of a payment, eight writes in one statement, spent
 * 0.4 ms planning per call), and the generic plan, when taken, joined small tables by a scan. The
 * one-row text gets a generic plan (index lookups) after five calls and keeps it. So each writer has
 * two texts, one prepared statement each: one row, and any other number.
 *
 *   const INTENT_COLUMNS = batchColumns<PaymentIntent>({
 *     id: ['text', (r) => r.id],
 *     amount_paise: ['bigint', (r) => r.amountPaise],
 *     receipt_context: ['jsonb', (r) => r.receiptContext],
 *     created_at: ['timestamptz', (r) => r.createdAt],
 *   });
 *   batchInsert('payment_intents', INTENT_COLUMNS, rows);
 */
export type BatchType =
  'text' | 'bigint' | 'int' | 'boolean' | 'jsonb' | 'json_text' | 'timestamptz';

/** Column name → [SQL type, the row's value]. Names are the table's columns, written by us. */
export type BatchColumns<R> = Record<string, readonly [BatchType, (row: R) => unknown]>;

const COLUMN_NAME = /^[a-z_][a-z0-9_]*$/;

/** The columns as given, each name checked to be a plain SQL identifier. */
export function batchColumns<R>(columns: BatchColumns<R>): BatchColumns<R> {
  for (const name of Object.keys(columns)) {
    if (!COLUMN_NAME.test(name)) {
      throw new Error(`batch column "${name}" is not a plain SQL identifier`);
    }
  }
  return columns;
}

/** The value as its array travels: text for jsonb (JSON) and timestamptz (ISO), else as it is. */
function wire(type: BatchType, v: unknown): unknown {
  if (v === null || v === undefined) {
    return null;
  }
  if (type === 'jsonb') {
    return JSON.stringify(v);
  }
  if (type === 'timestamptz') {
    return v instanceof Date ? v.toISOString() : v;
  }
  return v;
}

/** The array type a column's values are sent as ($n::text[] for jsonb and timestamptz). */
const ARRAY_TYPE: Record<BatchType, string> = {
  text: 'text',
  bigint: 'bigint',
  int: 'int',
  boolean: 'boolean',
  jsonb: 'text',
  json_text: 'text',
  timestamptz: 'text',
};

/** The SQL type a column is cast back to after travelling as text. */
const CAST: Partial<Record<BatchType, string>> = {
  jsonb: 'jsonb',
  json_text: 'jsonb',
  timestamptz: 'timestamptz',
};

/** A parameter of the one-row form: typed as its array would be, cast back like readBack. */
function paramOf(n: number, type: BatchType): string {
  const cast = CAST[type];
  return `$${n}::${ARRAY_TYPE[type]}${cast ? `::${cast}` : ''}`;
}

/** The one row's values as parameters $1, $2, …, as the arrays would carry them. */
function oneRowParams<R>(columns: BatchColumns<R>, row: R): unknown[] {
  return namesOf(columns).map((n) => wire(columns[n][0], columns[n][1](row)));
}

/** The parameter expressions of the one-row form, in column order. */
function oneRowExprs<R>(columns: BatchColumns<R>): string[] {
  return namesOf(columns).map((n, i) => paramOf(i + 1, columns[n][0]));
}

/**
 * Texts built before, by the columns object and what else the text depends on (the kind, the
 * table, the tail or key): a writer's one-row text is built once and is then the same string each
 * time, which the prepared statement's name and the commit's combined text are looked up by
 * (prepared.ts, `combineStatements` in tx.ts). Columns made per call simply miss and are collected
 * with them.
 */
const builtTexts = new WeakMap<object, Map<string, string>>();
const columnNames = new WeakMap<object, string[]>();

function cachedText(columns: object, key: string, build: () => string): string {
  let texts = builtTexts.get(columns);
  if (!texts) {
    texts = new Map();
    builtTexts.set(columns, texts);
  }
  let text = texts.get(key);
  if (text === undefined) {
    text = build();
    texts.set(key, text);
  }
  return text;
}

function namesOf(columns: object): string[] {
  let names = columnNames.get(columns);
  if (!names) {
    names = Object.keys(columns);
    columnNames.set(columns, names);
  }
  return names;
}

/** The column read back from the unnest alias, cast to its type where it travelled as text. */
function readBack(alias: string, name: string, type: BatchType): string {
  const cast = CAST[type];
  return cast ? `${alias}.${name}::${cast}` : `${alias}.${name}`;
}

/**
 * The parts of a batch statement: `unnest($1::text[], …) AS alias(col, …)` (with `WITH
 * ORDINALITY` and an `n` column when `ordered`), the select list with casts, and the parameters
 * (one array per column, parameters numbered from `first`).
 */
export function unnestOf<R>(
  columns: BatchColumns<R>,
  rows: readonly R[],
  opts: { alias: string; ordered?: boolean; first?: number },
): { from: string; select: string; names: string[]; params: unknown[][] } {
  const names = namesOf(columns);
  const first = opts.first ?? 1;
  const arrays = names.map((n, i) => `$${first + i}::${ARRAY_TYPE[columns[n][0]]}[]`);
  const aliases = opts.ordered ? [...names, 'n'] : names;
  return {
    from: `unnest(${arrays.join(', ')})${opts.ordered ? ' WITH ORDINALITY' : ''} AS ${opts.alias}(${aliases.join(', ')})`,
    select: names.map((n) => readBack(opts.alias, n, columns[n][0])).join(', '),
    names,
    params: names.map((n) => {
      const [type, value] = columns[n];
      return rows.map((r) => wire(type, value(r)));
    }),
  };
}

/**
 * `INSERT INTO table (cols) SELECT … FROM unnest(…)`, rows in the order given (`ordered`: by
 * their position, so serial ids follow it), with an optional tail (`RETURNING …`).
 */
export function batchInsert<R>(
  table: string,
  columns: BatchColumns<R>,
  rows: readonly R[],
  opts: { ordered?: boolean; tail?: string } = {},
): QueuedStatement {
  const tail = opts.tail ? ` ${opts.tail}` : '';
  if (rows.length === 1) {
    return {
      sql: cachedText(
        columns,
        `insert ${table}${tail}`,
        () =>
          `INSERT INTO ${table} (${namesOf(columns).join(', ')}) VALUES (${oneRowExprs(columns).join(', ')})${tail}`,
      ),
      params: oneRowParams(columns, rows[0]),
    };
  }
  const u = unnestOf(columns, rows, { alias: 'r', ordered: opts.ordered });
  return {
    sql:
      `INSERT INTO ${table} (${u.names.join(', ')}) SELECT ${u.select} FROM ${u.from}` +
      (opts.ordered ? ' ORDER BY r.n' : '') +
      tail,
    params: u.params,
  };
}

/**
 * `UPDATE table AS t SET col = u.col, … FROM unnest(…) AS u(…) WHERE t.key = u.key` for the
 * columns besides the key. A row queued twice keeps its last state (one UPDATE may not touch a
 * row twice).
 */
export function batchUpdate<R>(
  table: string,
  key: string,
  columns: BatchColumns<R>,
  queued: readonly R[],
): QueuedStatement {
  const keyOf = columns[key]?.[1];
  if (!keyOf) {
    throw new Error(`batch update of ${table}: the key column "${key}" is not among the columns`);
  }
  const rows = [...new Map(queued.map((r) => [keyOf(r), r])).values()];
  if (rows.length === 1) {
    return {
      sql: cachedText(columns, `update ${table} ${key}`, () => {
        const names = namesOf(columns);
        const exprs = oneRowExprs(columns);
        const at = names.indexOf(key);
        const sets = names.map((n, i) => `${n} = ${exprs[i]}`).filter((_, i) => i !== at);
        return `UPDATE ${table} AS t SET ${sets.join(', ')} WHERE t.${key} = ${exprs[at]}`;
      }),
      params: oneRowParams(columns, rows[0]),
    };
  }
  const u = unnestOf(columns, rows, { alias: 'u' });
  const sets = u.names
    .filter((n) => n !== key)
    .map((n) => `${n} = ${readBack('u', n, columns[n][0])}`);
  return {
    sql: `UPDATE ${table} AS t SET ${sets.join(', ')} FROM ${u.from} WHERE t.${key} = u.${key}`,
    params: u.params,
  };
}
