import { sha256Hex } from '../../src/common/crypto/secrets';
import type { TestApp } from './app';

/**
 * Runs `run` while another connection holds the IdempotencyInterceptor's advisory lock of one key
 * (owner, POST, path, key), as a twin request in flight does (docs/security.md "Idempotency").
 * `ownerId` is the principal as the interceptor scopes it, e.g. `protocol_key:<id>`.
 */
export async function withKeyHeld<T>(
  t: TestApp,
  scope: { ownerId: string; path: string; key: string },
  run: () => Promise<T>,
): Promise<T> {
  const lockId = BigInt.asIntN(
    64,
    BigInt(
      `0x${sha256Hex([scope.ownerId, 'POST', scope.path, scope.key].join('\u0000')).slice(0, 16)}`,
    ),
  ).toString();
  const qr = t.db.createQueryRunner();
  await qr.connect();
  await qr.startTransaction();
  try {
    await qr.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockId]);
    return await run();
  } finally {
    await qr.rollbackTransaction();
    await qr.release();
  }
}
