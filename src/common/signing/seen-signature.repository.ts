import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { deleteExpiredRows } from '../../database/expiry';
import { Tx } from '../../database/tx';

/** Removes the remembered signatures past their expiry (the retention job, src/retention); returns how many. */
export async function deleteExpiredSignatures(
  manager: EntityManager,
  now: Date,
  limit: number | null = null,
): Promise<number> {
  return deleteExpiredRows(
    manager,
    { table: 'seen_signatures', key: 'signature_hash' },
    now,
    limit,
  );
}

/**
 * The owner of seen_signatures (docs/architecture.md "Table owners"): the signatures
 * RequestSignatureVerifier has accepted, each accepted once.
 */
@Injectable()
export class SeenSignatureRepository {
  constructor(private readonly tx: Tx) {}

  /** Remembers a signature until `expiresAt`; false when it was already there (a replay). */
  async remember(signatureHash: string, expiresAt: Date): Promise<boolean> {
    const inserted: unknown[] = await this.tx.manager.query(
      `INSERT INTO seen_signatures (signature_hash, expires_at) VALUES ($1, $2)
       ON CONFLICT (signature_hash) DO NOTHING RETURNING signature_hash`,
      [signatureHash, expiresAt],
    );
    return inserted.length > 0;
  }
}
