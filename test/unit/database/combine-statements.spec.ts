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
});
