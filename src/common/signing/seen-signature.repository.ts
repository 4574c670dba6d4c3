import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { Tx } from '../../database/tx';

/** Removes the remembered signatures past their expiry (the retention job, src/retention); returns how many. */
export async function deleteExpiredSignatures(
  manager: EntityManager,
  now: Date,
  limit: number | null = null,
): Promise<number> {
  // limit null: all of them (LIMIT NULL); rows another instance is deleting are skipped.
  const [row] = await manager.query<{ n: number }[]>(
    `WITH d AS (
       DELETE FROM seen_signatures WHERE signature_hash IN (
         SELECT signature_hash FROM seen_signatures WHERE expires_at <= $1
          ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING 1)
     SELECT count(*)::int AS n FROM d`,
    [now, limit],
  );
  return row.n;
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
