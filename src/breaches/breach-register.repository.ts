import { Injectable } from '@nestjs/common';

import { accountParts } from '../accounts/accounts.repository';
import { agentParts } from '../accounts/agent.repository';
import { textOf } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { Tx } from '../database/tx';

/** Whom a breach touches: chosen persons, and every person of chosen workspaces. */
export interface BreachScope {
  person_ids: string[];
  workspace_ids: string[];
}

export interface BreachFacts {
  summary: string;
  extent: string;
  location: string;
  dataCategories: string;
  likelyConsequences: string;
  mitigation: string;
  personActions: string;
  factsAndReasons: string | null;
  responsibleFindings: string | null;
  remedialMeasures: string | null;
}

export interface BreachRow extends BreachFacts {
  id: string;
  operatorWorkspaceId: string;
  recordedBy: string;
  occurredAt: Date;
  awareAt: Date;
  scope: BreachScope;
  createdAt: Date;
  updatedAt: Date;
  noticesSentAt: Date | null;
  boardReportedAt: Date | null;
  boardReference: string | null;
}

/** One section of a notice, as the person reads it. */
export interface NoticeSection {
  heading: string;
  text: string;
}

export interface NoticeRow {
  id: string;
  breachId: string;
  personId: string;
  workspaceId: string;
  sections: NoticeSection[];
  outboxEventId: string | null;
  createdAt: Date;
}

const BREACH_COLUMNS = `id, operator_workspace_id AS "operatorWorkspaceId", recorded_by AS "recordedBy",
  summary, extent, location, data_categories AS "dataCategories",
  likely_consequences AS "likelyConsequences", mitigation, person_actions AS "personActions",
  facts_and_reasons AS "factsAndReasons", responsible_findings AS "responsibleFindings",
  remedial_measures AS "remedialMeasures", occurred_at AS "occurredAt", aware_at AS "awareAt", scope,
  created_at AS "createdAt", updated_at AS "updatedAt", notices_sent_at AS "noticesSentAt",
  board_reported_at AS "boardReportedAt", board_reference AS "boardReference"`;

const NOTICE_COLUMNS = `id, breach_id AS "breachId", person_id AS "personId", workspace_id AS "workspaceId",
  sections, outbox_event_id AS "outboxEventId", created_at AS "createdAt"`;

/** The only SQL on personal_data_breaches and breach_notices. */
@Injectable()
export class BreachRegisterRepository {
  constructor(private readonly tx: Tx) {}

  async insert(row: Omit<BreachRow, 'noticesSentAt' | 'boardReportedAt' | 'boardReference'>) {
    await this.tx.manager.query(
      `INSERT INTO personal_data_breaches (id, operator_workspace_id, recorded_by, summary, extent, location,
         data_categories, likely_consequences, mitigation, person_actions, facts_and_reasons,
         responsible_findings, remedial_measures, occurred_at, aware_at, scope, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [
        row.id,
        row.operatorWorkspaceId,
        row.recordedBy,
        row.summary,
        row.extent,
        row.location,
        row.dataCategories,
        row.likelyConsequences,
        row.mitigation,
        row.personActions,
        row.factsAndReasons,
        row.responsibleFindings,
        row.remedialMeasures,
        row.occurredAt,
        row.awareAt,
        JSON.stringify(row.scope),
        row.createdAt,
        row.updatedAt,
      ],
    );
  }

  /** Newest awareness first. */
  list(limit: number): Promise<BreachRow[]> {
    return this.tx.manager.query(
      `SELECT ${BREACH_COLUMNS} FROM personal_data_breaches ORDER BY aware_at DESC, id LIMIT $1`,
      [limit],
    );
  }

  async find(id: string, lock = false): Promise<BreachRow | null> {
    const [row] = await this.tx.manager.query<BreachRow[]>(
      `SELECT ${BREACH_COLUMNS} FROM personal_data_breaches WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return row ?? null;
  }

  async updateDetails(
    id: string,
    d: Pick<BreachFacts, 'factsAndReasons' | 'responsibleFindings' | 'remedialMeasures'>,
    at: Date,
  ): Promise<void> {
    await this.tx.manager.query(
      `UPDATE personal_data_breaches SET facts_and_reasons = $2, responsible_findings = $3,
              remedial_measures = $4, updated_at = $5 WHERE id = $1`,
      [id, d.factsAndReasons, d.responsibleFindings, d.remedialMeasures, at],
    );
  }

  async markNoticesSent(id: string, at: Date): Promise<void> {
    await this.tx.manager.query(
      'UPDATE personal_data_breaches SET notices_sent_at = $2, updated_at = $2 WHERE id = $1',
      [id, at],
    );
  }

  async markReported(id: string, at: Date, reference: string | null): Promise<void> {
    await this.tx.manager.query(
      `UPDATE personal_data_breaches SET board_reported_at = $2, board_reference = $3, updated_at = $2
        WHERE id = $1`,
      [id, at, reference],
    );
  }

  /**
   * The persons a scope names (persons by id, and every person of the workspaces), each with the
   * first enabled agent of their workspace (the outbox needs one; null when the workspace has none).
   */
  affectedPersons(
    scope: BreachScope,
  ): Promise<{ personId: string; workspaceId: string; agentId: string | null }[]> {
    return this.tx.manager.query(
      `SELECT p.person_id AS "personId", p.workspace_id AS "workspaceId",
              (SELECT a.id FROM (${textOf(agentParts.enabled())}) a WHERE a.workspace_id = p.workspace_id
                ORDER BY a.created_at, a.id LIMIT 1) AS "agentId"
         FROM (${textOf(accountParts.personsWithWorkspace())}) p
        WHERE p.person_id = ANY($1::text[]) OR p.workspace_id = ANY($2::text[])
        ORDER BY p.workspace_id, p.person_id`,
      [scope.person_ids, scope.workspace_ids],
    );
  }

  /** Which of these ids are persons, and which workspaces (to refuse unknown ones). */
  async knownIds(scope: BreachScope): Promise<{ persons: string[]; workspaces: string[] }> {
    const rows = await this.tx.manager.query<{ person_id: string; workspace_id: string }[]>(
      `SELECT p.person_id, p.workspace_id FROM (${textOf(accountParts.personsWithWorkspace())}) p
        WHERE p.person_id = ANY($1::text[]) OR p.workspace_id = ANY($2::text[])`,
      [scope.person_ids, scope.workspace_ids],
    );
    return {
      persons: [...new Set(rows.map((r) => r.person_id))],
      workspaces: [...new Set(rows.map((r) => r.workspace_id))],
    };
  }

  /** Inserts a notice unless the person already has one for this breach; true when inserted. */
  async insertNotice(n: NoticeRow): Promise<boolean> {
    const rows = await this.tx.manager.query<{ id: string }[]>(
      `INSERT INTO breach_notices (id, breach_id, person_id, workspace_id, sections, outbox_event_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (breach_id, person_id) DO NOTHING RETURNING id`,
      [
        n.id,
        n.breachId,
        n.personId,
        n.workspaceId,
        JSON.stringify(n.sections),
        n.outboxEventId,
        n.createdAt,
      ],
    );
    return rows.length > 0;
  }

  notices(breachId: string): Promise<NoticeRow[]> {
    return this.tx.manager.query(
      `SELECT ${NOTICE_COLUMNS} FROM breach_notices WHERE breach_id = $1 ORDER BY created_at, id`,
      [breachId],
    );
  }

  noticesOfPerson(personId: string): Promise<NoticeRow[]> {
    return this.tx.manager.query(
      `SELECT ${NOTICE_COLUMNS} FROM breach_notices WHERE person_id = $1 ORDER BY created_at DESC, id`,
      [personId],
    );
  }
}

/** Erasure's reach into breach_notices: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const breachNoticesPersonalRows = personalRows('breach_notices', 't.person_id = s.person');
