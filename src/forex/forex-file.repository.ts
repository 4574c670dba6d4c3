import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';

import { findPersonInWorkspace, personNames } from '../accounts/accounts.repository';
import { paiseFromSql } from '../common/money';
import { Cursor, newestFirst } from '../common/pagination';
import { personalRows } from '../database/personal-rows';
import { Tx } from '../database/tx';
import { ForexDocument } from './entities/forex-document.entity';
import { ForexFile } from './entities/forex-file.entity';
import { ForexQuote } from './entities/forex-quote.entity';
import { COMMITTED_STATUSES, FileStatus } from './forex-file.state';

export interface LrsTotals {
  usdCents: number;
  inrPaise: number;
}

/** First key of the two-key advisory lock serialising LRS checks of one PAN (second: hashtext). */
export const LRS_LOCK_CLASS = 0x46584c52; // "FXLR"

/** The only SQL on forex_files, forex_quotes and forex_documents. */
/**
 * Personal data (src/personal-data): a person's forex files and their documents' metadata, and
 * erasing the person's fields of those files. The PAN's keyed hash and masked form stay: they are
 * the KYC/LRS record a law requires us to keep (docs/personal-data.md).
 */
export const personalDataForex = {
  filesOfPerson(m: EntityManager, personId: string): Promise<ForexFile[]> {
    return m.find(ForexFile, { where: { personId }, order: { createdAt: 'ASC', id: 'ASC' } });
  },
  documentsOf(m: EntityManager, fileIds: string[]): Promise<ForexDocument[]> {
    return fileIds.length === 0
      ? Promise.resolve([])
      : m.find(ForexDocument, { where: { fileId: In(fileIds) }, order: { createdAt: 'ASC' } });
  },
  /** Names and notes go; the salt goes, so the chain's traveller-name digest links to nobody. */
  async eraseOfPerson(m: EntityManager, personId: string, now: Date): Promise<number> {
    const rows = await m.query<{ id: string }[]>(
      `WITH u AS (UPDATE forex_files SET traveller_name = 'Erased', beneficiary_name = NULL,
                         company_name = NULL, notes = NULL, traveller_name_salt = NULL, erased_at = $2
                   WHERE person_id = $1 RETURNING id)
       SELECT id FROM u`,
      [personId, now],
    );
    return rows.length;
  },
};

@Injectable()
export class ForexFileRepository {
  constructor(private readonly tx: Tx) {}

  async insert(file: ForexFile): Promise<void> {
    await this.tx.manager.insert(ForexFile, file);
  }

  find(id: string): Promise<ForexFile | null> {
    return this.tx.manager.findOneBy(ForexFile, { id });
  }

  /** SELECT … FOR NO KEY UPDATE: every move of a file happens under this lock. */
  lock(id: string, opts: { skipLocked?: boolean } = {}): Promise<ForexFile | null> {
    return this.tx.manager.findOne(ForexFile, {
      where: { id },
      lock: {
        mode: 'for_no_key_update',
        ...(opts.skipLocked ? { onLocked: 'skip_locked' as const } : {}),
      },
    });
  }

  async update(id: string, changes: Partial<ForexFile>): Promise<void> {
    await this.tx.manager.update(ForexFile, { id }, changes);
  }

  listForAgent(
    agentId: string,
    status: FileStatus | undefined,
    limit: number,
    after: Cursor | null,
  ): Promise<ForexFile[]> {
    const qb = this.tx.manager
      .createQueryBuilder(ForexFile, 'f')
      .where('f.agent_id = :agentId', { agentId });
    if (status) {
      qb.andWhere('f.status = :status', { status });
    }
    return newestFirst(qb, 'f', limit, after).getMany();
  }

  /** A partner's files in these states, oldest submission first (the dealer's queue order). */
  listForPartner(partnerId: string, statuses: FileStatus[], limit: number): Promise<ForexFile[]> {
    return this.tx.manager.find(ForexFile, {
      where: { partnerId, status: In(statuses) },
      order: { submittedAt: 'ASC', id: 'ASC' },
      take: limit,
    });
  }

  listForPerson(personId: string, limit: number): Promise<ForexFile[]> {
    return this.tx.manager.find(ForexFile, {
      where: { personId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }

  /** Files whose declaration window has passed, for the expiry sweep. */
  async overdueDeclarations(now: Date, limit: number): Promise<string[]> {
    const rows = await this.tx.manager.query<{ id: string }[]>(
      `SELECT id FROM forex_files WHERE status = 'awaiting_declaration' AND declaration_due_at <= $1
        ORDER BY declaration_due_at LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Serialises LRS/TCS checks of one PAN in one financial year until the transaction ends, so two
   * files of the same person submitted at once cannot both fit under the limit. Taken after the
   * file's row lock (docs/architecture.md "Lock order").
   */
  async lockPanYear(panHash: string, financialYear: string): Promise<void> {
    await this.tx.manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      LRS_LOCK_CLASS,
      `${panHash}:${financialYear}`,
    ]);
  }

  /**
   * What this PAN's other files committed in the financial year: files waiting for their
   * declaration (still within the window), with the dealer, or booked.
   */
  async lrsTotals(
    panHash: string,
    financialYear: string,
    excludeFileId: string,
    now: Date,
  ): Promise<LrsTotals> {
    const [row] = await this.tx.manager.query<{ usd: string; inr: string }[]>(
      `SELECT COALESCE(SUM(lrs_usd_cents), 0)::text AS usd, COALESCE(SUM(lrs_inr_paise), 0)::text AS inr
         FROM forex_files
        WHERE pan_hash = $1 AND lrs_financial_year = $2 AND id <> $3
          AND status = ANY($4::text[])
          AND NOT (status = 'awaiting_declaration' AND declaration_due_at <= $5)`,
      [panHash, financialYear, excludeFileId, COMMITTED_STATUSES, now],
    );
    return { usdCents: paiseFromSql(row.usd), inrPaise: paiseFromSql(row.inr) };
  }

  async insertQuote(quote: ForexQuote): Promise<void> {
    await this.tx.manager.insert(ForexQuote, quote);
  }

  findQuote(id: string): Promise<ForexQuote | null> {
    return this.tx.manager.findOneBy(ForexQuote, { id });
  }

  async insertDocument(doc: ForexDocument): Promise<void> {
    await this.tx.manager.insert(ForexDocument, doc);
  }

  documents(fileId: string): Promise<ForexDocument[]> {
    return this.tx.manager.find(ForexDocument, {
      where: { fileId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  findDocument(fileId: string, id: string): Promise<ForexDocument | null> {
    return this.tx.manager.findOneBy(ForexDocument, { fileId, id });
  }

  /** A person of the workspace by email (emails are stored lower-case). */
  findPersonInWorkspace(
    email: string,
    workspaceId: string,
  ): Promise<{ id: string; name: string } | null> {
    return findPersonInWorkspace(this.tx.manager, email, workspaceId);
  }

  personNames(ids: string[]): Promise<Map<string, string>> {
    return personNames(this.tx.manager, ids);
  }
}

/** A closed file's document whose sealed bytes are due for deletion (the retention job). */
export interface DocumentDueForDeletion {
  id: string;
  fileId: string;
  workspaceId: string;
  storedDocumentId: string;
}

/**
 * Documents of files closed at or before `closedBefore` whose bytes are still stored, oldest
 * first, locked (FOR UPDATE SKIP LOCKED: instances share the work). A file is closed when booked
 * or rejected (decided_at), or expired (its declaration window ended, declaration_due_at; an
 * awaiting file past the window reads expired before the sweep writes it, forex-file.state.ts).
 */
export function documentsDueForDeletion(
  m: EntityManager,
  closedBefore: Date,
  limit: number,
): Promise<DocumentDueForDeletion[]> {
  return m.query(
    `SELECT d.id, d.file_id AS "fileId", f.workspace_id AS "workspaceId",
            d.stored_document_id AS "storedDocumentId"
       FROM forex_documents d JOIN forex_files f ON f.id = d.file_id
      WHERE d.stored_document_id IS NOT NULL
        AND CASE WHEN f.status IN ('booked', 'rejected') THEN COALESCE(f.decided_at, f.updated_at)
                 WHEN f.status IN ('expired', 'awaiting_declaration') THEN f.declaration_due_at
            END <= $1
      ORDER BY d.created_at, d.id
      LIMIT $2
      FOR UPDATE OF d SKIP LOCKED`,
    [closedBefore, limit],
  );
}

/** The documents' bytes are gone: their metadata (and the receipt's SHA-256) stays. */
export async function markDocumentsDeleted(
  m: EntityManager,
  ids: string[],
  at: Date,
): Promise<void> {
  await m.query(
    'UPDATE forex_documents SET stored_document_id = NULL, purged_at = $2 WHERE id = ANY($1)',
    [ids, at],
  );
}

/** Erasure's reach into forex_documents: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const forexDocumentsPersonalRows = personalRows(
  'forex_documents',
  't.file_id IN (SELECT f.id FROM forex_files f WHERE f.person_id = s.person)',
);

/** Erasure's reach into forex_files: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const forexFilesPersonalRows = personalRows('forex_files', 't.person_id = s.person');
