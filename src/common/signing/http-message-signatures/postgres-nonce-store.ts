import { createHash } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { deleteExpiredRows } from '../../../database/expiry';
import { Tx } from '../../../database/tx';
import type { NonceStore } from './nonce-store';

/** The row key of a (keyid, nonce) pair: bounded whatever the signer sent. */
function nonceHash(keyid: string, nonce: string): string {
  return createHash('sha256')
    .update(JSON.stringify([keyid, nonce]), 'utf8')
    .digest('hex');
}

/**
 * Removes the nonces past their `until` (the retention job, src/retention, under its
 * seen_signatures kind); returns how many. Rows another instance is deleting are skipped.
 */
export async function deleteExpiredNonces(
  manager: EntityManager,
  now: Date,
  limit: number | null = null,
): Promise<number> {
  return deleteExpiredRows(manager, { table: 'signature_nonces', key: 'nonce_hash' }, now, limit);
}

/**
 * The shared NonceStore (docs/http-message-signatures.md "Nonces") and the owner of
 * signature_nonces (docs/architecture.md "Table owners"). A claim is one
 * INSERT … ON CONFLICT DO NOTHING: of two instances claiming the same nonce at once, one wins.
 * Outside a transaction it commits on its own (a guard claims before the handler runs).
 */
@Injectable()
export class PostgresNonceStore implements NonceStore {
  constructor(private readonly tx: Tx) {}

  async claim(keyid: string, nonce: string, until: Date): Promise<boolean> {
    const inserted: unknown[] = await this.tx.manager.query(
      `INSERT INTO signature_nonces (nonce_hash, expires_at) VALUES ($1, $2)
       ON CONFLICT (nonce_hash) DO NOTHING RETURNING nonce_hash`,
      [nonceHash(keyid, nonce), until],
    );
    return inserted.length > 0;
  }
}
