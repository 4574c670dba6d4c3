import { QueryFailedError } from 'typeorm';

import { outageOf } from '../../../src/common/errors/outage';

/** Builds an error the way node-postgres / Node sockets / ioredis do: an Error with extra fields. */
function err(message: string, fields: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), fields);
}

describe('outageOf', () => {
  it.each([
    [
      'pg_terminate_backend on a query',
      err('terminating connection due to administrator command', { code: '57P01' }),
    ],
    [
      'crash shutdown',
      err('terminating connection because of crash of another server process', { code: '57P02' }),
    ],
    ['starting up', err('the database system is starting up', { code: '57P03' })],
    ['too many clients', err('sorry, too many clients already', { code: '53300' })],
    ['connection exception class 08', err('connection failure', { code: '08006' })],
    [
      'ALLOW_CONNECTIONS false',
      err('database "x" is not currently accepting connections', { code: '55000' }),
    ],
    [
      'refused socket',
      err('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED', errno: -111 }),
    ],
    ['reset socket', err('read ECONNRESET', { code: 'ECONNRESET' })],
    ['server closed the socket', err('Connection terminated unexpectedly')],
    ['connect timeout', err('Connection terminated due to connection timeout')],
    ['pool wait timeout', err('timeout exceeded when trying to connect')],
    [
      'query on a dead client',
      err('Client has encountered a connection error and is not queryable'),
    ],
    ['ioredis closed', err('Connection is closed.')],
    [
      'TypeORM query runner released after its connection failed',
      Object.assign(err('Database connection provided by a query runner was already released'), {
        name: 'QueryRunnerProviderAlreadyReleasedError',
      }),
    ],
    [
      'ioredis retries exhausted',
      Object.assign(err('Reached the max retries per request limit (which is 20).'), {
        name: 'MaxRetriesPerRequestError',
      }),
    ],
  ])('%s is an outage', (_, e) => {
    expect(outageOf(e)).not.toBeNull();
  });

  it('looks inside TypeORM QueryFailedError, cause and AggregateError', () => {
    const q = new QueryFailedError(
      'SELECT 1',
      [],
      err('terminating connection due to administrator command', { code: '57P01' }),
    );
    expect(outageOf(q)).toMatchObject({ dependency: 'postgres' });
    expect(
      outageOf(new Error('wrapped', { cause: err('Connection terminated unexpectedly') })),
    ).toMatchObject({
      dependency: 'postgres',
    });
    const agg = new AggregateError(
      [err('connect ECONNREFUSED ::1:5432', { code: 'ECONNREFUSED' })],
      '',
    );
    expect(outageOf(agg)).toMatchObject({ dependency: 'network', reason: 'ECONNREFUSED' });
  });

  it.each([
    ['unique violation', err('duplicate key value violates unique constraint', { code: '23505' })],
    ['syntax error', err('syntax error at or near "SELEC"', { code: '42601' })],
    ['serialization failure', err('could not serialize access', { code: '40001' })],
    ['statement timeout', err('canceling statement due to statement timeout', { code: '57014' })],
    ['other 55000', err('cannot ALTER TABLE because it is being used', { code: '55000' })],
    ['wrong password', err('password authentication failed for user "x"', { code: '28P01' })],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'boom'],
    ['null', null],
  ])('%s is not an outage', (_, e) => {
    expect(outageOf(e)).toBeNull();
  });

  it('does not loop on a self-referencing cause', () => {
    const e = new Error('loop') as Error & { cause?: unknown };
    e.cause = e;
    expect(outageOf(e)).toBeNull();
  });
});
