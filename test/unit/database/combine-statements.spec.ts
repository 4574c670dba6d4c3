import { combineStatements } from '../../../src/database/tx';

describe('combineStatements', () => {
  it('sends a single statement as it is', () => {
    const one = { sql: 'UPDATE t SET a = $1 WHERE id = $2', params: [1, 'x'] };
    expect(combineStatements([one])).toBe(one);
  });

  it('makes each statement a CTE of one statement, parameters renumbered in order', () => {
    expect(
      combineStatements([
        {
          sql: 'INSERT INTO a (x, y) SELECT * FROM unnest($1::text[], $2::text[])',
          params: [['p'], ['q']],
        },
        { sql: 'UPDATE b SET v = $2 WHERE id = $1', params: ['id1', 7] },
        { sql: 'DELETE FROM c WHERE k = $1 OR j = $10', params: ['k', 2, 3, 4, 5, 6, 7, 8, 9, 10] },
      ]),
    ).toEqual({
      sql:
        'WITH w1 AS (INSERT INTO a (x, y) SELECT * FROM unnest($1::text[], $2::text[])), ' +
        'w2 AS (UPDATE b SET v = $4 WHERE id = $3), ' +
        'w3 AS (DELETE FROM c WHERE k = $5 OR j = $14) SELECT 1',
      params: [['p'], ['q'], 'id1', 7, 'k', 2, 3, 4, 5, 6, 7, 8, 9, 10],
    });
  });

  it('builds a combination once: the same texts give the same string, with the parameters of each call', () => {
    const texts = ['INSERT INTO a (x) VALUES ($1::text)', 'UPDATE b SET v = $2 WHERE id = $1'];
    const first = combineStatements([
      { sql: texts[0], params: ['p'] },
      { sql: texts[1], params: ['id1', 7] },
    ]);
    const second = combineStatements([
      { sql: texts[0], params: ['q'] },
      { sql: texts[1], params: ['id2', 8] },
    ]);
    expect(second.sql).toBe(first.sql);
    expect(second.sql).toBe(
      'WITH w1 AS (INSERT INTO a (x) VALUES ($1::text)), w2 AS (UPDATE b SET v = $3 WHERE id = $2) SELECT 1',
    );
    expect(second.params).toEqual(['q', 'id2', 8]);
  });

  it('tells combinations apart by order and by the parameter count of each statement', () => {
    const a = { sql: 'UPDATE a SET v = $1', params: [1] };
    const b = { sql: 'UPDATE b SET v = $1', params: [2] };
    expect(combineStatements([a, b]).sql).toBe(
      'WITH w1 AS (UPDATE a SET v = $1), w2 AS (UPDATE b SET v = $2) SELECT 1',
    );
    expect(combineStatements([b, a]).sql).toBe(
      'WITH w1 AS (UPDATE b SET v = $1), w2 AS (UPDATE a SET v = $2) SELECT 1',
    );
    // The same text with one parameter more (an array form's text can serve other counts).
    expect(combineStatements([{ ...a, params: [1, 'extra'] }, b]).sql).toBe(
      'WITH w1 AS (UPDATE a SET v = $1), w2 AS (UPDATE b SET v = $3) SELECT 1',
    );
  });
});
