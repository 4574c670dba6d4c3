import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { Sweeper } from '../common/sweeper/sweeper';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { RefusalKeepingWrites, Tx } from '../database/tx';
import { Approval, ApprovalKind } from './approval.entity';
import { ApprovalRepository } from './approval.repository';
import {
  defaultApprovalExpiry,
  expiryDelayMs,
  isPastExpiry,
  statusAfterDecision,
} from './approval.state';
import { ApprovalExpiryProducer } from './approval-expiry.producer';
import { approvalErrors } from './approvals.errors';

export type ApprovalDecision = 'approved' | 'denied' | 'expired';

/**
 * What the handler found when a person approved: the subject can no longer go ahead (e.g. the
 * buyer's mandate was revoked while the payment waited), so the approval ends `withdrawn` with
 * this note for the person instead of `approved`.
 */
export interface ApprovalWithdrawn {
  withdrawn: string;
}

/** What the owner of an approval kind does once a person (or the timeout) decides. */
export interface ApprovalHandler<Locked = void> {
  /**
   * Lock whatever the subject's decision will change, in the lock order (docs/architecture.md);
   * what it locked is handed to `decided`.
   */
  prepare(approval: Approval): Promise<Locked>;
  decided(
    approval: Approval,
    decision: ApprovalDecision,
    locked: Locked,
  ): Promise<void | ApprovalWithdrawn>;
}

/** A pending approval locked after its subject, with what its handler locked (ApprovalHandler). */
interface LockedApproval {
  approval: Approval;
  subject: unknown;
}

/**
 * Questions for people. Created by the pipeline (payments above the threshold, refunds) and
 * answered only through the app (PersonGuard + CSRF): no API key, agent credential or protocol
 * key reaches `decide`. Unanswered approvals expire through a delayed Bull job.
 */
@Injectable()
export class ApprovalsService implements OnModuleInit {
  private readonly handlers = new Map<ApprovalKind, ApprovalHandler<unknown>>();
  private readonly logger = new Logger(ApprovalsService.name);

  constructor(
    private readonly tx: Tx,
    private readonly approvals: ApprovalRepository,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly expiryJobs: ApprovalExpiryProducer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sweeper: Sweeper,
  ) {}

  /**
   * The delayed Bull job is the fast path; this database sweep is the safety net for a job lost
   * while Redis was down, so no approval can stay open past its expiry.
   */
  onModuleInit(): void {
    this.sweeper.register('approvals-expiry', () => this.expireOverdue(), { everyMs: 5000 });
  }

  registerHandler<Locked>(kind: ApprovalKind, handler: ApprovalHandler<Locked>): void {
    // A handler's `decided` is only ever given what its own `prepare` returned.
    this.handlers.set(kind, handler);
  }

  /** Opens an approval in the caller's transaction; the expiry job is queued after commit. */
  async request(input: {
    workspaceId: string;
    kind: ApprovalKind;
    subjectId: string;
    amountPaise: number;
    summary: string;
    /** Default: APPROVAL_TTL_SECONDS from now. A scheduled debit's lasts until its cycle ends. */
    expiresAt?: Date;
  }): Promise<Approval> {
    const now = this.clock.now();
    const { expiresAt, ...fields } = input;
    const approval = Object.assign(new Approval(), {
      id: newId('apr'),
      ...fields,
      status: 'pending' as const,
      decidedBy: null,
      decidedAt: null,
      note: null,
      createdAt: now,
      expiresAt: expiresAt ?? defaultApprovalExpiry(now, this.config.approvalTtlSeconds),
    });
    await this.approvals.insert(approval);
    const delay = expiryDelayMs(approval.expiresAt, this.clock.now());
    this.tx.afterCommit(() => this.expiryJobs.enqueue({ approvalId: approval.id }, delay));
    return approval;
  }

  async list(
    workspaceId: string,
    status: Approval['status'] | 'all' = 'pending',
  ): Promise<Approval[]> {
    return this.approvals.listInWorkspace(workspaceId, status);
  }

  async get(workspaceId: string, id: string): Promise<Approval> {
    const a = await this.approvals.findInWorkspace(workspaceId, id);
    if (!a) {
      throw approvalErrors.notFound(id);
    }
    return a;
  }

  /**
   * A person's answer. Only the app's person-facing controller calls this. An approval past its
   * expiry is marked `expired` (and its subject declined) and the person is told
   * `approval_expired`: the expiry commits even though the call is refused.
   */
  async decide(
    workspaceId: string,
    id: string,
    personId: string,
    decision: 'approved' | 'denied',
  ): Promise<Approval> {
    return this.tx.run(async () => {
      const locked = await this.lockPending(id, workspaceId);
      if (isPastExpiry(locked.approval, this.clock.now())) {
        await this.finish(locked, 'expired', null);
        throw new RefusalKeepingWrites(approvalErrors.expired(id));
      }
      await this.finish(locked, decision, personId);
      return locked.approval;
    });
  }

  /**
   * The subject went away (the checkout was canceled, the mandate or token was revoked): close the
   * pending approval without calling the handler, with a note for the person. The caller already
   * holds the subject's locks.
   */
  async withdraw(kind: ApprovalKind, subjectId: string, note: string): Promise<void> {
    const now = this.clock.now();
    const rows = await this.approvals.withdrawPending(kind, subjectId, now, note.slice(0, 500));
    for (const row of rows) {
      await this.audit.record(
        row.workspace_id,
        { type: 'system', id: 'pipeline' },
        'approval.withdrawn',
        row.id,
        {
          kind,
          subject_id: subjectId,
          note,
        },
      );
    }
  }

  /** Expires overdue pending approvals (oldest first, a bounded batch per call). */
  async expireOverdue(limit = 50): Promise<number> {
    const due = await this.approvals.overdueIds(this.clock.now(), limit);
    let expired = 0;
    for (const id of due) {
      try {
        expired += (await this.expire(id)) === 'expired' ? 1 : 0;
      } catch (err) {
        this.logger.warn(
          { approval_id: id, err: (err as Error).message },
          'approval expiry sweep skipped one',
        );
      }
    }
    return expired;
  }

  /** Timeout: the processor calls this; a decided approval is left alone. */
  async expire(id: string): Promise<'expired' | 'skipped'> {
    return this.tx.run(async () => {
      const current = await this.approvals.findById(id);
      if (!current || current.status !== 'pending') {
        return 'skipped';
      }
      if (!isPastExpiry(current, this.clock.now())) {
        // Fired early (clock skew between Redis and us): fail so Bull retries with backoff.
        throw new Error(`approval ${id} is not due yet`);
      }
      await this.finish(await this.lockPending(id, current.workspaceId), 'expired', null);
      return 'expired';
    });
  }

  private async lockPending(id: string, workspaceId: string): Promise<LockedApproval> {
    const peek = await this.approvals.findInWorkspace(workspaceId, id);
    if (!peek) {
      throw approvalErrors.notFound(id);
    }
    const handler = this.handler(peek.kind);
    // Lock order: subject (source → intent/refund) first, then the approval row.
    const subject = await handler.prepare(peek);
    const approval = await this.approvals.lockInWorkspace(workspaceId, id);
    if (!approval) {
      throw approvalErrors.notFound(id);
    }
    if (approval.status !== 'pending') {
      throw approvalErrors.alreadyDecided(id, approval.status);
    }
    return { approval, subject };
  }

  /**
   * Records the decision and lets the subject's handler act on it. When the handler finds that an
   * approved subject can no longer go ahead, the approval ends `withdrawn` with its note.
   */
  private async finish(
    { approval, subject }: LockedApproval,
    decision: ApprovalDecision,
    personId: string | null,
  ): Promise<void> {
    const now = this.clock.now();
    approval.status = decision;
    approval.decidedBy = personId;
    approval.decidedAt = now;
    const outcome = await this.handler(approval.kind).decided(approval, decision, subject);
    approval.status = statusAfterDecision(decision, outcome);
    if (outcome) {
      approval.note = outcome.withdrawn.slice(0, 500);
    }
    await this.approvals.update(approval.id, {
      status: approval.status,
      decidedBy: personId,
      decidedAt: now,
      note: approval.note,
    });
    await this.audit.record(
      approval.workspaceId,
      personId ? { type: 'person', id: personId } : { type: 'system', id: 'approval-timeout' },
      `approval.${approval.status}`,
      approval.id,
      {
        kind: approval.kind,
        subject_id: approval.subjectId,
        ...(outcome ? { decision, note: approval.note } : {}),
      },
    );
  }

  private handler(kind: ApprovalKind): ApprovalHandler<unknown> {
    const h = this.handlers.get(kind);
    if (!h) {
      throw new Error(`no approval handler registered for ${kind}`);
    }
    return h;
  }
}
