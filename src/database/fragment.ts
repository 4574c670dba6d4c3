/**
 * SQL fragments that cannot splice a value (docs/architecture.md "Table owners"). A fragment is made
 * only by the `sql` template tag: its text is the tag's literal pieces, written in the code, and every
 * interpolated value becomes a bind parameter (`$n` when rendered). Unquoted, the tag accepts only other
 * fragments (inlined) and columns made by `col()`, whose names are checked against a strict pattern.
 * A plain string is not a fragment, so no function taking one can be handed SQL text.
 */

const IDENTIFIER = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;

/** Held only by this file: the classes below are built by `col`, `param` and `sql` alone. */
const KEY: unique symbol = Symbol('sql fragment');

function own(key: symbol): void {
  if (key !== KEY) {
    throw new Error('SQL fragments are made by the sql tag, col() and param()');
  }
}

/** A column (or table alias and column) of the enclosing statement, emitted unquoted. */
export class SqlColumn {
  private readonly brand = 'SqlColumn';

  /** Use `col()`. */
  constructor(
    key: typeof KEY,
    readonly name: string,
  ) {
    own(key);
    if (!IDENTIFIER.test(name)) {
      throw new Error(`not a column name: ${JSON.stringify(name)}`);
    }
  }
}

/**
 * One value that a statement may use in several places: each interpolation of the same `SqlParam`
 * renders as the same `$n` (a plain value renders as a new parameter each time it appears).
 */
export class SqlParam {
  private readonly brand = 'SqlParam';

  /** Use `param()`. */
  constructor(
    key: typeof KEY,
    readonly value: unknown,
  ) {
    own(key);
  }
}

/** What a fragment holds between its literal pieces. */
type Item = SqlFragment | SqlColumn | SqlParam | { readonly value: unknown };

/** A piece of SQL made by the `sql` tag; render it with `render()`. */
export class SqlFragment {
  private readonly brand = 'SqlFragment';

  /** Use the `sql` tag. */
  constructor(
    key: typeof KEY,
    readonly strings: readonly string[],
    readonly items: readonly Item[],
  ) {
    own(key);
  }
}

/** What a parts function takes for an expression: a column, a shared value, or a fragment. */
export type SqlOperand = SqlFragment | SqlColumn | SqlParam;

/** A column of the enclosing statement, e.g. `col('t.mandate_id')`; throws on anything else. */
export function col(name: string): SqlColumn {
  return new SqlColumn(KEY, name);
}

/** A value to interpolate more than once as one bind parameter. */
export function param(value: unknown): SqlParam {
  return new SqlParam(KEY, value);
}

/**
 * The template tag: `sql\`(… WHERE id = ${id})\``. Fragments are inlined, columns
 * emitted unquoted, everything else is a bind parameter.
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): SqlFragment {
  if (!Object.isFrozen(strings) || !Array.isArray(strings.raw)) {
    throw new Error('sql is a template tag');
  }
  const items: Item[] = values.map((v) =>
    v instanceof SqlFragment || v instanceof SqlColumn || v instanceof SqlParam ? v : { value: v },
  );
  return new SqlFragment(KEY, strings, items);
}

/** A statement's text and values: parameters numbered in order of appearance from $1. */
export interface Rendered {
  text: string;
  values: unknown[];
}

/**
 * The fragment's text and values. The text depends only on the fragment's shape (its literal pieces,
 * columns and which items are values), never on the values, so one shape is one prepared statement.
 */
export function render(fragment: SqlFragment): Rendered {
  const values: unknown[] = [];
  const shared = new Map<SqlParam, number>();
  const text = write(fragment, values, shared);
  return { text, values };
}

function write(f: SqlFragment, values: unknown[], shared: Map<SqlParam, number>): string {
  let text = f.strings[0];
  for (let i = 0; i < f.items.length; i++) {
    const item = f.items[i];
    if (item instanceof SqlFragment) {
      text += write(item, values, shared);
    } else if (item instanceof SqlColumn) {
      text += item.name;
    } else if (item instanceof SqlParam) {
      let n = shared.get(item);
      if (n === undefined) {
        n = values.push(item.value);
        shared.set(item, n);
      }
      text += `$${n}`;
    } else {
      text += `$${values.push(item.value)}`;
    }
    text += f.strings[i + 1];
  }
  return text;
}

/**
 * The text of a fragment that holds no value (only literal pieces, columns and fragments), for a
 * TypeORM query builder's condition; throws when it holds a value.
 */
export function textOf(fragment: SqlFragment): string {
  const { text, values } = render(fragment);
  if (values.length > 0) {
    throw new Error('textOf: the fragment holds values; render it with its statement');
  }
  return text;
}
