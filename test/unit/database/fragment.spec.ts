import {
  col,
  param,
  render,
  sql,
  SqlColumn,
  SqlFragment,
  type SqlOperand,
  SqlParam,
  textOf,
} from '../../../src/database/fragment';

/** An owner's parts as owners write them (docs/architecture.md "Table owners"). */
const agentParts = {
  nameOf: (id: SqlOperand): SqlFragment => sql`(SELECT name FROM agents WHERE id = ${id})`,
  isEnabled: (id: SqlOperand): SqlFragment =>
    sql`EXISTS (SELECT 1 FROM agents a WHERE a.id = ${id} AND a.disabled_at IS NULL)`,
};

/** SQL fragments (src/database/fragment.ts). */
describe('SQL fragments', () => {
  it('turns every interpolated value into a bind parameter, numbered in order', () => {
    const id = "x'; DROP TABLE agents; --";
    const f = sql`SELECT name FROM agents WHERE id = ${id} AND created_at > ${new Date(0)}`;
    expect(render(f)).toEqual({
      text: 'SELECT name FROM agents WHERE id = $1 AND created_at > $2',
      values: [id, new Date(0)],
    });
  });

  it('inlines nested fragments and renumbers their parameters', () => {
    const inner = (v: unknown) => sql`(SELECT name FROM agents WHERE id = ${v})`;
    const f = sql`SELECT ${inner('a')} AS a, ${7} AS n, ${inner('b')} AS b`;
    expect(render(f)).toEqual({
      text:
        'SELECT (SELECT name FROM agents WHERE id = $1) AS a, $2 AS n, ' +
        '(SELECT name FROM agents WHERE id = $3) AS b',
      values: ['a', 7, 'b'],
    });
  });

  it('emits columns unquoted and refuses anything but an identifier', () => {
    expect(render(sql`SELECT ${col('t.mandate_id')}, ${col('id')}`).text).toBe(
      'SELECT t.mandate_id, id',
    );
    expect(() => col('x; DROP TABLE y')).toThrow(/not a column name/);
    expect(() => col("t.id = '1'")).toThrow(/not a column name/);
    expect(() => col('a.b.c')).toThrow(/not a column name/);
    expect(() => col('Id')).toThrow(/not a column name/);
  });

  it('renders one shared param as one parameter wherever it appears', () => {
    const now = param(new Date(5));
    const f = sql`SELECT ${now} AS a, ${'x'} AS b, ${now} AS c`;
    expect(render(f)).toEqual({
      text: 'SELECT $1 AS a, $2 AS b, $1 AS c',
      values: [new Date(5), 'x'],
    });
  });

  it('gives the same text for the same shape, whatever the values', () => {
    const st = (id: string) => render(sql`SELECT ${agentParts.nameOf(sql`${id}`)} AS n`);
    expect(st('a').text).toBe(st("b'; --").text);
    expect(st('a').values).toEqual(['a']);
  });

  it('gives the text of a fragment without values, and refuses one with values', () => {
    expect(textOf(agentParts.isEnabled(col('k.agent_id')))).toBe(
      'EXISTS (SELECT 1 FROM agents a WHERE a.id = k.agent_id AND a.disabled_at IS NULL)',
    );
    expect(() => textOf(sql`x = ${1}`)).toThrow(/holds values/);
  });

  it('cannot be built other than by the tag, col() and param()', () => {
    const strings = ['x; DROP TABLE y'];
    expect(() => sql(strings as unknown as TemplateStringsArray)).toThrow(/template tag/);
    const Ctor = SqlFragment as unknown as new (k: symbol, s: string[], i: unknown[]) => unknown;
    expect(() => new Ctor(Symbol('sql fragment'), ['x'], [])).toThrow(/made by the sql tag/);
    const Col = SqlColumn as unknown as new (k: symbol, n: string) => unknown;
    expect(() => new Col(Symbol('sql fragment'), 'x')).toThrow(/made by the sql tag/);
    const Par = SqlParam as unknown as new (k: symbol, v: unknown) => unknown;
    expect(() => new Par(Symbol('sql fragment'), 1)).toThrow(/made by the sql tag/);
  });

  it('does not accept a raw string where a fragment or column is expected (type test)', () => {
    const takesFragment = (f: SqlFragment) => f;
    const takesOperand = (o: SqlOperand) => o;
    const id = 'abc';
    // Type-only: never run.
    const typeOnly = () => {
      // @ts-expect-error a string is not a fragment
      takesFragment(`WHERE id = ${id}`);
      // @ts-expect-error a string is not an operand
      takesOperand('t.id');
      // @ts-expect-error a parts function does not take SQL text
      agentParts.nameOf('$1');
      // @ts-expect-error nor a value unwrapped
      agentParts.nameOf(42);
      // @ts-expect-error an object shaped like a fragment is not one
      takesFragment({ strings: ['x'], items: [] });
      // @ts-expect-error the constructor needs the file's own key
      new SqlFragment(Symbol('k'), ['x'], []);
    };
    expect(typeof typeOnly).toBe('function');
    expect(takesFragment(sql`WHERE id = ${id}`)).toBeInstanceOf(SqlFragment);
    expect(takesOperand(col('t.id'))).toBeInstanceOf(SqlColumn);
    expect(takesOperand(param(1))).toBeInstanceOf(SqlParam);
  });
});
