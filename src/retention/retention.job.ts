import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { abandonedSignups, deleteAbandonedSignup } from '../accounts/accounts.repository';
import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { deleteExpiredRecords } from '../common/idempotency/idempotency-record.repository';
import { deleteExpiredNonces } from '../common/signing/http-message-signatures/postgres-nonce-store';
import { deleteExpiredSignatures } from '../common/signing/seen-signature.repository';
import { Sweeper } from '../common/sweeper/sweeper';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { deleteStoredDocuments } from '../documents/stored-document.repository';
import { documentsDueForDeletion, markDocumentsDeleted } from '../forex/forex-file.repository';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { PersonSessionService } from '../web/person-session.service';
import { forexDocumentsYears, RetentionKind, yearsBefore } from './retention-schedule';

/** First key of the per-kind advisory lock (second: hashtext(kind)): one instance per kind at a time. */
const RETENTION_LOCK_CLASS = 0x52544e4a; // "RTNJ"

/** Audit rows about the service itself (no workspace): the retention job's counts. */
export const SERVICE_AUDIT_WORKSPACE = 'service';

const ACTOR = { type: 'system' as const, id: 'retention' };

const DAY_MS = 24 * 3600_000;

export type RetentionCounts = Record<RetentionKind, number>;

/**
 * The retention schedule enforced (retention-schedule.ts; docs/personal-data.md "Retention
 * schedule"): one sweep ('retention', every RETENTION_EVERY_MS) deletes at most
 * RETENTION_BATCH_SIZE records of each kind per run, each kind in its own transaction under its own
 * advisory lock (another instance running the same kind skips it; the owners' statements also skip
 * rows locked by another). Every period is measured against the service Clock, never SQL now().
 * Each batch that deletes something writes an audit row with the kind and the count (and, for a
 * workspace's own records, a row in that workspace) and counts svc_retention_deleted_total{kind}
 * when it commits; never a personal value.
 *
 * The SQL stays with each table's owner: sessions (PersonSessionService), idempotency records and
 * seen signatures (src/common), forex documents (ForexFileRepository, then the DocumentStore's
 * rows), workspaces, persons and API keys (AccountsService).
 */
@Injectable()
export class RetentionJob implements OnModuleInit {
  private readonly logger = new Logger(RetentionJob.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly sweeper: Sweeper,
    private readonly sessions: PersonSessionService,
    private readonly metrics: MetricsRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.sweeper.register('retention', () => this.run(), {
      everyMs: this.config.retention.everyMs,
    });
  }

  /** One run of the whole schedule; returns how many records of each kind went. */
  async run(): Promise<RetentionCounts> {
    const now = this.clock.now();
    const limit = this.config.retention.batchSize;
    const signupCutoff = new Date(
      now.getTime() - this.config.retention.abandonedSignupDays * DAY_MS,
    );
    const counts: RetentionCounts = {
      person_sessions: await this.batch('person_sessions', now, () =>
        this.sessions.deleteExpiredSessions(now, limit),
      ),
      idempotency_records: await this.batch('idempotency_records', now, (m) =>
        deleteExpiredRecords(m, now, limit),
      ),
      // With the RFC 9421 nonces (signature_nonces): the same replay protection, the same rule.
      seen_signatures: await this.batch(
        'seen_signatures',
        now,
        async (m) =>
          (await deleteExpiredSignatures(m, now, limit)) +
          (await deleteExpiredNonces(m, now, limit)),
      ),
      forex_document_bytes: await this.batch(
        'forex_document_bytes',
        yearsBefore(now, forexDocumentsYears(this.config)),
        (m, cutoff) => this.deleteForexDocumentBytes(m, cutoff, now, limit),
      ),
      abandoned_signups: await this.batch('abandoned_signups', signupCutoff, (m, cutoff) =>
        this.deleteAbandonedSignups(m, cutoff, limit),
      ),
    };
    if (Object.values(counts).some((n) => n > 0)) {
      this.logger.log(counts, 'retention: records past their period deleted');
    }
    return counts;
  }

  /** One kind's batch in its own transaction, under its lock; audited and counted when it commits. */
  private batch(
    kind: RetentionKind,
    cutoff: Date,
    fn: (m: EntityManager, cutoff: Date) => Promise<number>,
  ): Promise<number> {
    return this.tx.run(async (m) => {
      const [{ locked }] = await m.query<{ locked: boolean }[]>(
        'SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS locked',
        [RETENTION_LOCK_CLASS, kind],
      );
      if (!locked) {
        return 0;
      }
      const n = await fn(m, cutoff);
      if (n > 0) {
        await this.audit.record(SERVICE_AUDIT_WORKSPACE, ACTOR, 'retention.deleted', null, {
          kind,
          count: n,
          cutoff: cutoff.toISOString(),
        });
        this.tx.afterCommit(() => this.metrics.retentionDeleted.inc({ kind }, n));
      }
      return n;
    });
  }

  /** The bytes go, the metadata stays (its SHA-256 is on the file's signed receipt). */
  private async deleteForexDocumentBytes(
    m: EntityManager,
    closedBefore: Date,
    now: Date,
    limit: number,
  ): Promise<number> {
    const due = await documentsDueForDeletion(m, closedBefore, limit);
    if (due.length === 0) {
      return 0;
    }
    await markDocumentsDeleted(
      m,
      due.map((d) => d.id),
      now,
    );
    await deleteStoredDocuments(
      m,
      due.map((d) => d.storedDocumentId),
    );
    const perFile = new Map<string, { workspaceId: string; documents: number }>();
    for (const d of due) {
      const entry = perFile.get(d.fileId) ?? { workspaceId: d.workspaceId, documents: 0 };
      entry.documents += 1;
      perFile.set(d.fileId, entry);
    }
    for (const [fileId, { workspaceId, documents }] of perFile) {
      await this.audit.record(workspaceId, ACTOR, 'retention.forex_documents_deleted', fileId, {
        documents,
      });
    }
    return due.length;
  }

  /** Each in a savepoint: one that something else still points at is kept (and logged). */
  private async deleteAbandonedSignups(
    m: EntityManager,
    before: Date,
    limit: number,
  ): Promise<number> {
    const candidates = await abandonedSignups(m, before, limit);
    let deleted = 0;
    let kept = 0;
    for (const signup of candidates) {
      try {
        await this.tx.savepoint('retention_signup', () => deleteAbandonedSignup(m, signup));
      } catch (err) {
        if ((err as { code?: string }).code !== '23503') {
          throw err;
        }
        kept += 1;
        continue;
      }
      deleted += 1;
      await this.audit.record(
        signup.workspaceId,
        ACTOR,
        'retention.abandoned_signup_deleted',
        signup.workspaceId,
        { days: this.config.retention.abandonedSignupDays },
      );
    }
    if (kept > 0) {
      this.logger.warn({ kept }, 'retention: abandoned sign-ups kept, other records point at them');
    }
    return deleted;
  }
}
