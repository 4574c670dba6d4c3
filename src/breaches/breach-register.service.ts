import { Inject, Injectable } from '@nestjs/common';

import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { AppError, commonErrors } from '../common/errors/app-error';
import { newId } from '../common/ids';
import { APP_CONFIG, AppConfig, DEFAULT_DATA_RIGHTS } from '../config/app.config';
import { Tx } from '../database/tx';
import { OutboxRepository } from '../outbox/outbox.repository';
import { formatIst } from '../web/local-time';
import type { SignedInPerson } from '../web/signed-in-person';
import { BoardClock, boardClock } from './breach-clock';
import {
  BreachFacts,
  BreachRegisterRepository,
  BreachRow,
  BreachScope,
  NoticeRow,
  NoticeSection,
} from './breach-register.repository';

/** The outbox (and webhook) event of a notice to one affected person. */
export const BREACH_NOTICE_EVENT = 'personal_data.breach_notice';

export interface RecordBreachInput extends BreachFacts {
  occurredAt: Date;
  awareAt: Date;
  scope: BreachScope;
}

/** The report to the Data Protection Board (DPDP Rules 2025 r.7(2)), as JSON and on the page. */
export interface BoardReport {
  object: 'personal_data_breach_report';
  breach_id: string;
  data_fiduciary_contact: { name: string; email: string };
  /** r.7(2)(a): without delay. */
  description: {
    nature: string;
    extent: string;
    occurred_at: string;
    became_aware_at: string;
    location: string;
    personal_data_affected: string;
    likely_impact: string;
  };
  /** r.7(2)(b): within 72 hours of becoming aware. */
  detailed: {
    broad_facts_events_circumstances_reasons: string | null;
    measures_to_mitigate_risk: string;
    findings_regarding_person_who_caused_it: string | null;
    remedial_measures_to_prevent_recurrence: string | null;
    intimations_to_affected_persons: {
      persons_affected: number;
      notices_given: number;
      also_sent_to_workspace_webhooks: number;
      given_at: string | null;
      channel: string;
    };
  };
  deadline: {
    due_at: string;
    state: BoardClock['state'];
    in_words: string;
    reported_at: string | null;
    board_reference: string | null;
  };
  recorded_at: string;
}

/** The operator, as the actor of the audit rows in their workspace. */
const actorOf = (p: SignedInPerson) => ({ type: 'person' as const, id: p.personId });

/**
 * The breach register (docs/personal-data.md "Breach register"; DPDP Act 2023 s.8(6), Rules 2025
 * r.7): an operator records a breach, sends the notices to the affected persons (in the app, and as
 * a `personal_data.breach_notice` event to their workspace's webhooks when it has an agent), fills
 * in the detailed report and marks it sent to the Board; the 72-hour clock runs from awareness on
 * the service Clock. Every step is written to the operator workspace's audit trail; the rows
 * never carry a person's name or email, only ids and counts.
 */
@Injectable()
export class BreachRegisterService {
  constructor(
    private readonly tx: Tx,
    private readonly repo: BreachRegisterRepository,
    private readonly outbox: OutboxRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get reportHours(): number {
    return this.config.breaches.boardReportHours;
  }

  clockOf(b: BreachRow): BoardClock {
    return boardClock(b, this.reportHours, this.clock.now());
  }

  list(): Promise<BreachRow[]> {
    return this.repo.list(200);
  }

  async get(id: string): Promise<BreachRow> {
    const b = await this.repo.find(id);
    if (!b) {
      throw commonErrors.notFound('breach', id);
    }
    return b;
  }

  notices(id: string): Promise<NoticeRow[]> {
    return this.repo.notices(id);
  }

  noticesOfPerson(personId: string): Promise<NoticeRow[]> {
    return this.repo.noticesOfPerson(personId);
  }

  async record(operator: SignedInPerson, input: RecordBreachInput): Promise<BreachRow> {
    const now = this.clock.now();
    if (input.occurredAt.getTime() > input.awareAt.getTime()) {
      throw commonErrors.invalid(
        '$.occurred_at',
        'It cannot have happened after we became aware of it',
      );
    }
    if (input.awareAt.getTime() > now.getTime()) {
      throw commonErrors.invalid('$.aware_at', 'When we became aware cannot be in the future');
    }
    if (input.scope.person_ids.length + input.scope.workspace_ids.length === 0) {
      throw commonErrors.invalid('$.persons', 'Name the persons or workspaces it touches');
    }
    return this.tx.run(async () => {
      const known = await this.repo.knownIds(input.scope);
      const unknown = [
        ...input.scope.person_ids.filter((id) => !known.persons.includes(id)),
        ...input.scope.workspace_ids.filter((id) => !known.workspaces.includes(id)),
      ];
      if (unknown.length > 0) {
        throw commonErrors.invalid('$.persons', `No person or workspace ${unknown.join(', ')}`);
      }
      const row = {
        ...input,
        id: newId('pdb'),
        operatorWorkspaceId: operator.workspaceId,
        recordedBy: operator.personId,
        createdAt: now,
        updatedAt: now,
      };
      await this.repo.insert(row);
      await this.audit.record(operator.workspaceId, actorOf(operator), 'breach.recorded', row.id, {
        occurred_at: input.occurredAt.toISOString(),
        aware_at: input.awareAt.toISOString(),
        persons_named: input.scope.person_ids.length,
        workspaces_named: input.scope.workspace_ids.length,
      });
      return { ...row, noticesSentAt: null, boardReportedAt: null, boardReference: null };
    });
  }

  /** The notice one person reads (r.7(1)(a)–(e)), in plain words. */
  noticeSections(b: BreachRow): NoticeSection[] {
    const g = this.config.dataRights ?? DEFAULT_DATA_RIGHTS;
    return [
      {
        heading: 'What happened',
        text: `${b.summary} It happened around ${formatIst(b.occurredAt)} (${b.location}); we found out on ${formatIst(b.awareAt)}. ${b.extent}`,
      },
      { heading: 'Which of your data', text: b.dataCategories },
      { heading: 'What this may mean for you', text: b.likelyConsequences },
      { heading: 'What we have done', text: b.mitigation },
      { heading: 'What you can do', text: b.personActions },
      {
        heading: 'Questions or a complaint',
        text: `Write to our grievance officer, ${g.grievanceOfficerName}, at ${g.grievanceOfficerEmail}; we answer within ${g.grievanceResponseDays} days. If you are not satisfied with the answer, you can complain to the Data Protection Board of India.`,
      },
    ];
  }

  /**
   * Sends the notices, once per breach: one per affected person, in the app (their Notices page)
   * and as a `personal_data.breach_notice` event to their workspace's webhooks (when the workspace
   * has an agent to address it to). Under the breach's row lock, so two clicks send once.
   */
  async sendNotices(
    operator: SignedInPerson,
    id: string,
  ): Promise<{ notices: number; webhooks: number }> {
    return this.tx.run(async () => {
      const b = await this.repo.find(id, true);
      if (!b) {
        throw commonErrors.notFound('breach', id);
      }
      if (b.noticesSentAt) {
        throw new AppError(
          409,
          'invalid_request',
          'notices_already_sent',
          `The notices of ${id} were sent at ${formatIst(b.noticesSentAt)}`,
        );
      }
      const now = this.clock.now();
      const sections = this.noticeSections(b);
      let webhooks = 0;
      const persons = await this.repo.affectedPersons(b.scope);
      for (const p of persons) {
        const noticeId = newId('bn');
        const event = p.agentId
          ? await this.outbox.add({
              workspaceId: p.workspaceId,
              agentId: p.agentId,
              type: BREACH_NOTICE_EVENT,
              subjectId: noticeId,
              data: {
                notice_id: noticeId,
                breach_id: b.id,
                person_id: p.personId,
                sections,
              },
            })
          : null;
        webhooks += event ? 1 : 0;
        await this.repo.insertNotice({
          id: noticeId,
          breachId: b.id,
          personId: p.personId,
          workspaceId: p.workspaceId,
          sections,
          outboxEventId: event?.id ?? null,
          createdAt: now,
        });
      }
      await this.repo.markNoticesSent(b.id, now);
      await this.audit.record(
        operator.workspaceId,
        actorOf(operator),
        'breach.notices_sent',
        b.id,
        {
          notices: persons.length,
          webhooks,
        },
      );
      return { notices: persons.length, webhooks };
    });
  }

  async updateDetails(
    operator: SignedInPerson,
    id: string,
    d: Pick<BreachFacts, 'factsAndReasons' | 'responsibleFindings' | 'remedialMeasures'>,
  ): Promise<void> {
    await this.tx.run(async () => {
      const b = await this.repo.find(id, true);
      if (!b) {
        throw commonErrors.notFound('breach', id);
      }
      await this.repo.updateDetails(id, d, this.clock.now());
      await this.audit.record(
        operator.workspaceId,
        actorOf(operator),
        'breach.details_updated',
        id,
        {
          fields: Object.entries(d)
            .filter(([, v]) => v !== null)
            .map(([k]) => k),
        },
      );
    });
  }

  /** The detailed report went to the Board (by its own channel); the clock stops. */
  async markReported(operator: SignedInPerson, id: string, reference: string | null) {
    await this.tx.run(async () => {
      const b = await this.repo.find(id, true);
      if (!b) {
        throw commonErrors.notFound('breach', id);
      }
      if (b.boardReportedAt) {
        throw new AppError(
          409,
          'invalid_request',
          'already_reported',
          `${id} was reported to the Board at ${formatIst(b.boardReportedAt)}`,
        );
      }
      const now = this.clock.now();
      await this.repo.markReported(id, now, reference);
      const clock = boardClock({ awareAt: b.awareAt, boardReportedAt: now }, this.reportHours, now);
      await this.audit.record(
        operator.workspaceId,
        actorOf(operator),
        'breach.reported_to_board',
        id,
        {
          state: clock.state,
          has_reference: reference !== null,
        },
      );
    });
  }

  /** The report to the Board; opening it (page, print or JSON) is audited. */
  async report(
    operator: SignedInPerson,
    id: string,
    format: 'page' | 'json',
  ): Promise<BoardReport> {
    const b = await this.get(id);
    const notices = await this.repo.notices(id);
    const persons = await this.repo.affectedPersons(b.scope);
    await this.audit.record(operator.workspaceId, actorOf(operator), 'breach.report_opened', id, {
      format,
    });
    const g = this.config.dataRights ?? DEFAULT_DATA_RIGHTS;
    const clock = this.clockOf(b);
    return {
      object: 'personal_data_breach_report',
      breach_id: b.id,
      data_fiduciary_contact: { name: g.grievanceOfficerName, email: g.grievanceOfficerEmail },
      description: {
        nature: b.summary,
        extent: b.extent,
        occurred_at: new Date(b.occurredAt).toISOString(),
        became_aware_at: new Date(b.awareAt).toISOString(),
        location: b.location,
        personal_data_affected: b.dataCategories,
        likely_impact: b.likelyConsequences,
      },
      detailed: {
        broad_facts_events_circumstances_reasons: b.factsAndReasons,
        measures_to_mitigate_risk: b.mitigation,
        findings_regarding_person_who_caused_it: b.responsibleFindings,
        remedial_measures_to_prevent_recurrence: b.remedialMeasures,
        intimations_to_affected_persons: {
          persons_affected: b.noticesSentAt ? notices.length : persons.length,
          notices_given: notices.length,
          also_sent_to_workspace_webhooks: notices.filter((n) => n.outboxEventId).length,
          given_at: b.noticesSentAt ? new Date(b.noticesSentAt).toISOString() : null,
          channel:
            'In the app (the person\u2019s Notices page) and to the workspace\u2019s webhooks',
        },
      },
      deadline: {
        due_at: clock.dueAt.toISOString(),
        state: clock.state,
        in_words: clock.words,
        reported_at: b.boardReportedAt ? new Date(b.boardReportedAt).toISOString() : null,
        board_reference: b.boardReference,
      },
      recorded_at: new Date(b.createdAt).toISOString(),
    };
  }
}
