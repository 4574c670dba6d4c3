import { batchColumns, batchInsert, batchUpdate } from '../../../src/database/batch';

interface Row {
  id: string;
  amount: number;
  facts: Record<string, unknown> | null;
  at: Date | null;
}

const COLUMNS = batchColumns<Row>({
  id: ['text', (r) => r.id],
  amount_paise: ['bigint', (r) => r.amount],
  facts: ['jsonb', (r) => r.facts],
  created_at: ['timestamptz', (r) => r.at],
});

const rows: Row[] = [
  { id: 'a', amount: 100, facts: { x: 1 }, at: new Date('2026-11-25T10:00:00Z') },
  { id: 'b', amount: 250, facts: null, at: null },
];

describe('batch writers (src/database/batch.ts)', () => {
  it('names each column once and sends one array per column, cast back where it travelled as text', () => {
    const s = batchInsert('things', COLUMNS, rows);
    expect(s.sql).toBe(
      'INSERT INTO things (id, amount_paise, facts, created_at) SELECT r.id, r.amount_paise, ' +
        'r.facts::jsonb, r.created_at::timestamptz FROM unnest($1::text[], $2::bigint[], $3::text[], ' +
        '$4::text[]) AS r(id, amount_paise, facts, created_at)',
    );
    expect(s.params).toEqual([
      ['a', 'b'],
      [100, 250],
      ['{"x":1}', null],
      ['2026-11-25T10:00:00.000Z', null],
    ]);
  });

  it('has one text for any number of rows but one (one prepared statement each)', () => {
    const three = [...rows, { ...rows[0], id: 'c' }];
    expect(batchInsert('things', COLUMNS, three).sql).toBe(
      batchInsert('things', COLUMNS, rows).sql,
    );
  });

  it('writes one row without unnest, so Postgres keeps a generic plan: VALUES, cast as the arrays are', () => {
    const s = batchInsert('things', COLUMNS, rows.slice(0, 1), { tail: 'RETURNING id' });
    expect(s.sql).toBe(
      'INSERT INTO things (id, amount_paise, facts, created_at) VALUES ($1::text, $2::bigint, ' +
        '$3::text::jsonb, $4::text::timestamptz) RETURNING id',
    );
    expect(s.params).toEqual(['a', 100, '{"x":1}', '2026-11-25T10:00:00.000Z']);
    const nulls = batchInsert('things', COLUMNS, rows.slice(1));
    expect(nulls.params).toEqual(['b', 250, null, null]);
  });

  it('updates one row by its key, the last state of a row queued twice', () => {
    const s = batchUpdate('things', 'id', COLUMNS, [rows[0], { ...rows[0], amount: 999 }]);
    expect(s.sql).toBe(
      'UPDATE things AS t SET amount_paise = $2::bigint, facts = $3::text::jsonb, ' +
        'created_at = $4::text::timestamptz WHERE t.id = $1::text',
    );
    expect(s.params).toEqual(['a', 999, '{"x":1}', '2026-11-25T10:00:00.000Z']);
  });

  it('keeps the order given, with a tail', () => {
    const s = batchInsert('things', COLUMNS, rows, { ordered: true, tail: 'RETURNING id' });
    expect(s.sql).toMatch(
      /WITH ORDINALITY AS r\(id, amount_paise, facts, created_at, n\) ORDER BY r\.n RETURNING id$/,
    );
  });

  it('updates by key, the last state of a row queued twice', () => {
    const s = batchUpdate('things', 'id', COLUMNS, [...rows, { ...rows[0], amount: 999 }]);
    expect(s.sql).toBe(
      'UPDATE things AS t SET amount_paise = u.amount_paise, facts = u.facts::jsonb, ' +
        'created_at = u.created_at::timestamptz FROM unnest($1::text[], $2::bigint[], $3::text[], ' +
        '$4::text[]) AS u(id, amount_paise, facts, created_at) WHERE t.id = u.id',
    );
    expect(s.params[0]).toEqual(['a', 'b']);
    expect(s.params[1]).toEqual([999, 250]);
  });

  it('builds a one-row text once per table, tail and key: the same columns give each its own', () => {
    const one = rows.slice(0, 1);
    const texts = () => [
      batchInsert('things', COLUMNS, one).sql,
      batchInsert('others', COLUMNS, one).sql,
      batchInsert('things', COLUMNS, one, { tail: 'RETURNING id' }).sql,
      batchUpdate('things', 'id', COLUMNS, one).sql,
      batchUpdate('things', 'amount_paise', COLUMNS, one).sql,
      batchUpdate('others', 'id', COLUMNS, one).sql,
    ];
    const first = texts();
    expect(new Set(first).size).toBe(first.length);
    expect(first[1]).toMatch(/^INSERT INTO others /);
    expect(first[2]).toMatch(/ RETURNING id$/);
    expect(first[4]).toMatch(/ WHERE t\.amount_paise = \$2::bigint$/);
    expect(first[5]).toMatch(/^UPDATE others AS t /);
    expect(texts()).toEqual(first);
    // Each call still sends its own row's values.
    expect(batchInsert('things', COLUMNS, rows.slice(1)).params).toEqual(['b', 250, null, null]);
  });

  it('refuses a column name that is not a plain identifier', () => {
    expect(() => batchColumns<Row>({ 'id; DROP TABLE x': ['text', (r) => r.id] })).toThrow(
      /not a plain SQL identifier/,
    );
    expect(() => batchUpdate('things', 'nope', COLUMNS, rows)).toThrow(/key column "nope"/);
  });
});
