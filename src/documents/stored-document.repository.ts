import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { Tx } from '../database/tx';

/** A stored_documents row as written: the plaintext's facts and its sealed bytes. */
export interface StoredDocumentRow {
  id: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  keyVersion: number;
  ciphertext: Buffer;
}

/** What a read gives back to open the document. */
export interface SealedDocumentRow {
  content_type: string;
  sha256: string;
  key_version: number;
  ciphertext: Buffer;
}

/**
 * Deletes stored documents by id (the retention job, after the owner of the row pointing at each
 * has let go of it); returns how many went.
 */
export async function deleteStoredDocuments(m: EntityManager, ids: string[]): Promise<number> {
  if (ids.length === 0) {
    return 0;
  }
  const [row] = await m.query<{ n: number }[]>(
    `WITH d AS (DELETE FROM stored_documents WHERE id = ANY($1) RETURNING 1)
     SELECT count(*)::int AS n FROM d`,
    [ids],
  );
  return row.n;
}

/**
 * The owner of stored_documents (docs/architecture.md "Table owners"); PostgresDocumentStore seals
 * and opens, this reads and writes the rows in the ambient transaction.
 */
@Injectable()
export class StoredDocumentRepository {
  constructor(private readonly tx: Tx) {}

  async insert(row: StoredDocumentRow): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO stored_documents (id, content_type, size_bytes, sha256, key_version, ciphertext)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [row.id, row.contentType, row.sizeBytes, row.sha256, row.keyVersion, row.ciphertext],
    );
  }

  async find(id: string): Promise<SealedDocumentRow | null> {
    const rows: SealedDocumentRow[] = await this.tx.manager.query(
      `SELECT content_type, sha256, key_version, ciphertext FROM stored_documents WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }
}
