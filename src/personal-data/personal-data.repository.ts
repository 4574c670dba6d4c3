import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { newId } from '../common/ids';
import { Tx } from '../database/tx';
import type { OldIdentifier } from './identifiers';

/** What a person agreed to (consent_records.kind). */
export type ConsentKind = 'mandate' | 'protocol_key' | 'forex_declaration';

/**
 * The purpose of each consent, in the words the person saw (DPDP Act s.6: consent for a specified
 * purpose). Stored on each row, so a later change of wording does not rewrite what was agreed.
 */
export const CONSENT_PURPOSE: Record<ConsentKind, string> = {
  mandate: "Let your agent pay from your UPI account within this mandate's limits",
  protocol_key: 'Let an agent act for your workspace over the agent protocols with this key',
  forex_declaration:
    'Send your forex file, PAN (masked) and documents to the dealer to buy foreign currency',
};

export interface ConsentRecord {
  id: string;
  kind: ConsentKind;
  subjectId: string;
  personId: string | null;
  purpose: string;
  givenAt: Date;
  withdrawnAt: Date | null;
}

/** A kept record class after an erasure: what, how many, under which rule, until when. */
export interface KeptRecord {
  kind: string;
  count: number;
  rule: string;
  periodYears: number;
  /** True where the period is not confirmed (DOMAIN.md 28b [U]); configurable. */
  uncertain: boolean;
  holdUntil: string;
}

export interface ErasureRow {
  id: string;
  workspaceId: string;
  personId: string;
  erasedAt: Date;
  workspaceClosed: boolean;
  kept: KeptRecord[];
  legalHoldUntil: Date | null;
}

/**
 * Records that a consent was given, in the caller's transaction (mandate authorised, protocol key
 * issued, forex declaration made). Giving the same consent twice keeps the first row.
 */
export async function recordConsentGiven(
  m: EntityManager,
  c: {
    workspaceId: string;
    personId: string | null;
    kind: ConsentKind;
    subjectId: string;
    at: Date;
  },
): Promise<void> {
  await m.query(
    `INSERT INTO consent_records (id, workspace_id, person_id, kind, subject_id, purpose, given_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (kind, subject_id) DO NOTHING`,
    [newId('cns'), c.workspaceId, c.personId, c.kind, c.subjectId, CONSENT_PURPOSE[c.kind], c.at],
  );
}

/** Records the withdrawal (a mandate revoked, a key revoked); the first withdrawal time stays. */
export async function recordConsentWithdrawn(
  m: EntityManager,
  kind: ConsentKind,
  subjectId: string,
  at: Date,
): Promise<void> {
  await m.query(
    `UPDATE consent_records SET withdrawn_at = $3
      WHERE kind = $1 AND subject_id = $2 AND withdrawn_at IS NULL`,
    [kind, subjectId, at],
  );
}

/**
 * Keyed hashes of values a person corrected (never the values; migration
 * 1764000001800-PersonalDataOldIdentifiers), in the caller's transaction.
 */
export async function recordOldIdentifiers(
  m: EntityManager,
  personId: string,
  old: OldIdentifier[],
  at: Date,
): Promise<void> {
  for (const o of old) {
    await m.query(
      `INSERT INTO personal_data_old_identifiers (id, person_id, kind, words, digest, recorded_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (person_id, kind, digest) DO NOTHING`,
      [newId('oid'), personId, o.kind, o.words, o.digest, at],
    );
  }
}

export async function oldIdentifiersOf(
  m: EntityManager,
  personId: string,
): Promise<OldIdentifier[]> {
  const rows = await m.query<OldIdentifier[]>(
    `SELECT kind, words, digest FROM personal_data_old_identifiers
      WHERE person_id = $1 ORDER BY id`,
    [personId],
  );
  return rows;
}

/** Counts per kind, for the download (the hashes are not the person's to read back). */
export async function oldIdentifierCounts(
  m: EntityManager,
  personId: string,
): Promise<Record<string, number>> {
  const rows = await m.query<{ kind: string; n: number }[]>(
    `SELECT kind, count(*)::int AS n FROM personal_data_old_identifiers
      WHERE person_id = $1 GROUP BY kind ORDER BY kind`,
    [personId],
  );
  return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
}

/** Erasure's last step on them: the hashes served only to find old copies. */
export async function deleteOldIdentifiers(m: EntityManager, personId: string): Promise<number> {
  const [, n] = await m.query<[unknown[], number]>(
    'DELETE FROM personal_data_old_identifiers WHERE person_id = $1',
    [personId],
  );
  return n;
}

/** The only SQL on consent_records and personal_data_erasures besides the two writers above. */
@Injectable()
export class PersonalDataRepository {
  constructor(private readonly tx: Tx) {}

  async consentsOf(workspaceId: string): Promise<ConsentRecord[]> {
    const rows = await this.tx.manager.query<
      {
        id: string;
        kind: ConsentKind;
        subject_id: string;
        person_id: string | null;
        purpose: string;
        given_at: Date;
        withdrawn_at: Date | null;
      }[]
    >(
      `SELECT id, kind, subject_id, person_id, purpose, given_at, withdrawn_at
         FROM consent_records WHERE workspace_id = $1 ORDER BY given_at DESC, id DESC`,
      [workspaceId],
    );
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      subjectId: r.subject_id,
      personId: r.person_id,
      purpose: r.purpose,
      givenAt: new Date(r.given_at),
      withdrawnAt: r.withdrawn_at ? new Date(r.withdrawn_at) : null,
    }));
  }

  async insertErasure(row: ErasureRow): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO personal_data_erasures
         (id, workspace_id, person_id, erased_at, workspace_closed, kept, legal_hold_until)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)`,
      [
        row.id,
        row.workspaceId,
        row.personId,
        row.erasedAt,
        row.workspaceClosed,
        JSON.stringify(row.kept),
        row.legalHoldUntil,
      ],
    );
  }

  async erasureOf(personId: string): Promise<ErasureRow | null> {
    const [r] = await this.tx.manager.query<
      {
        id: string;
        workspace_id: string;
        person_id: string;
        erased_at: Date;
        workspace_closed: boolean;
        kept: KeptRecord[];
        legal_hold_until: Date | null;
      }[]
    >(
      `SELECT id, workspace_id, person_id, erased_at, workspace_closed, kept, legal_hold_until
         FROM personal_data_erasures WHERE person_id = $1 ORDER BY erased_at DESC LIMIT 1`,
      [personId],
    );
    return r
      ? {
          id: r.id,
          workspaceId: r.workspace_id,
          personId: r.person_id,
          erasedAt: new Date(r.erased_at),
          workspaceClosed: r.workspace_closed,
          kept: r.kept,
          legalHoldUntil: r.legal_hold_until ? new Date(r.legal_hold_until) : null,
        }
      : null;
  }
}
