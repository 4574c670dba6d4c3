import { Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { ChainService } from '../chains/chain.service';
import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { Sweeper } from '../common/sweeper/sweeper';
import { RefusalKeepingWrites, Tx } from '../database/tx';
import { OutboxRepository } from '../outbox/outbox.repository';
import { recordConsentGiven } from '../personal-data/personal-data.repository';
import { findAadhaar } from './aadhaar';
import type { DealerNote, ForexFile } from './entities/forex-file.entity';
import type { ForexPartner } from './entities/forex-partner.entity';
import { forexErrors } from './forex.errors';
import { quoteFacts } from './forex.service';
import { ForexFileRepository } from './forex-file.repository';
import { canMove, effectiveFileStatus, FileMove, FileStatus } from './forex-file.state';
import { ForexPartnersService } from './forex-partners.service';
import { FileFacts, ForexViews } from './forex-views';

/** Who acts on the app side: a signed-in person (never a bearer credential). */
export interface PersonActor {
  personId: string;
  workspaceId: string;
  name: string;
}

export type DealerDecision = 'book' | 'return' | 'reject';

const EXPIRY_SWEEP_MS = 30_000;
const EXPIRY_BATCH = 50;

/**
 * The people's side of a forex file: the file's person confirms the Form A2 / LRS declaration, and
 * the partner's dealer (a person in the partner's workspace) books, returns or rejects it. Reached
 * only from the signed-in app with a CSRF token (ForexPagesController); no API key, agent
 * credential or protocol key reaches these methods. A file outside the person's reach is 404.
 * Events forex.booked / forex.returned / forex.rejected go through the outbox with the change.
 */
@Injectable()
export class ForexDeskService implements OnModuleInit {
  private readonly logger = new Logger(ForexDeskService.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly files: ForexFileRepository,
    private readonly partners: ForexPartnersService,
    private readonly views: ForexViews,
    private readonly chains: ChainService,
    private readonly outbox: OutboxRepository,
    private readonly sweeper: Sweeper,
  ) {}

  onModuleInit(): void {
    this.sweeper.register('forex.expire-declarations', () => this.expireOverdue(), {
      everyMs: EXPIRY_SWEEP_MS,
    });
  }

  /** The person's own files (newest first), with what each waits for. */
  async filesOfPerson(person: PersonActor): Promise<FileFacts[]> {
    const rows = await this.files.listForPerson(person.personId, 50);
    return Promise.all(rows.map((f) => this.views.facts(f)));
  }

  async fileOfPerson(person: PersonActor, fileId: string): Promise<FileFacts> {
    const file = await this.files.find(fileId);
    if (!file || file.personId !== person.personId) {
      throw forexErrors.fileNotFound(fileId);
    }
    return this.views.facts(file);
  }

  /** The file's person confirms the declaration: the file goes to the dealer's queue. */
  async declare(person: PersonActor, fileId: string): Promise<ForexFile> {
    return this.tx.run(async () => {
      const file = await this.files.lock(fileId);
      if (!file || file.personId !== person.personId) {
        throw forexErrors.fileNotFound(fileId);
      }
      const now = this.clock.now();
      const status = effectiveFileStatus(file, now);
      if (status === 'expired' && file.status === 'awaiting_declaration') {
        await this.expire(file, now);
        throw new RefusalKeepingWrites(forexErrors.declarationExpired());
      }
      if (!canMove(status, 'declare')) {
        throw forexErrors.notInState(file.id, status, 'be declared');
      }
      const quote = file.currentQuoteId ? await this.files.findQuote(file.currentQuoteId) : null;
      const changes = {
        status: 'submitted' as const,
        declaredAt: now,
        declaredBy: person.personId,
        updatedAt: now,
      };
      Object.assign(file, changes);
      await this.files.update(file.id, changes);
      await this.audit.record(
        file.workspaceId,
        { type: 'person', id: person.personId },
        'forex.declared',
        file.id,
      );
      await recordConsentGiven(this.tx.manager, {
        workspaceId: file.workspaceId,
        personId: person.personId,
        kind: 'forex_declaration',
        subjectId: file.id,
        at: now,
      });
      await this.chains.append(file.receiptId, {
        type: 'forex.declared',
        file_id: file.id,
        person_id: person.personId,
        declaration: 'form_a2_lrs_v1',
        purpose_code: file.purposeCode,
        ...(quote ? quoteFacts(quote) : {}),
        lrs_financial_year: file.lrsFinancialYear,
        lrs_usd_cents: file.lrsUsdCents,
      });
      return file;
    });
  }

  /** The partner whose dealer this person is; anyone else gets 404 (there is no desk for them). */
  async partnerOfDealer(person: PersonActor): Promise<ForexPartner> {
    const partner = await this.partners.forWorkspace(person.workspaceId);
    if (!partner) {
      throw forexErrors.partnerNotFound('for this workspace');
    }
    return partner;
  }

  async queue(
    person: PersonActor,
  ): Promise<{ partner: ForexPartner; waiting: FileFacts[]; decided: FileFacts[] }> {
    const partner = await this.partnerOfDealer(person);
    const [waiting, decided] = await Promise.all([
      this.files.listForPartner(partner.id, ['submitted'], 100),
      this.files.listForPartner(partner.id, ['booked', 'returned', 'rejected'], 50),
    ]);
    return {
      partner,
      waiting: await Promise.all(waiting.map((f) => this.views.facts(f))),
      decided: await Promise.all(decided.map((f) => this.views.facts(f))),
    };
  }

  /**
   * A file of the dealer's partner that has reached the desk (declared). Files of another partner,
   * and files still with the agent or the person, are 404.
   */
  async deskFile(person: PersonActor, fileId: string): Promise<FileFacts> {
    const partner = await this.partnerOfDealer(person);
    const file = await this.files.find(fileId);
    if (!file || file.partnerId !== partner.id || !onDesk(file.status)) {
      throw forexErrors.fileNotFound(fileId);
    }
    return this.views.facts(file);
  }

  /**
   * Book (with the deal reference, at the quote's locked rate), return (with a note for the agent)
   * or reject (with a note) a submitted file.
   */
  async decide(
    person: PersonActor,
    fileId: string,
    decision: DealerDecision,
    text: string,
  ): Promise<ForexFile> {
    const param = decision === 'book' ? 'deal_reference' : 'note';
    if (findAadhaar(text)) {
      throw forexErrors.aadhaarRefused(param);
    }
    const value = text.trim();
    if (!value || value.length > (decision === 'book' ? 100 : 1000)) {
      throw forexErrors.invalid(
        param,
        'missing',
        decision === 'book'
          ? 'Enter the deal reference (up to 100 characters)'
          : 'Enter a note for the agent (up to 1,000 characters)',
      );
    }
    return this.tx.run(async () => {
      const partner = await this.partnerOfDealer(person);
      const file = await this.files.lock(fileId);
      if (!file || file.partnerId !== partner.id || !onDesk(file.status)) {
        throw forexErrors.fileNotFound(fileId);
      }
      const move: FileMove = decision;
      if (!canMove(file.status, move)) {
        throw forexErrors.notInState(file.id, file.status, `be ${pastTense(decision)}`);
      }
      const now = this.clock.now();
      const quote = file.currentQuoteId ? await this.files.findQuote(file.currentQuoteId) : null;
      const note: DealerNote = {
        at: now.toISOString(),
        action: pastTense(decision),
        note: value,
        dealer_name: person.name,
      };
      const changes: Partial<ForexFile> = {
        status: pastTense(decision),
        decidedAt: now,
        decidedBy: person.personId,
        dealReference: decision === 'book' ? value : null,
        dealerNotes: [...file.dealerNotes, note],
        returns: decision === 'return' ? file.returns + 1 : file.returns,
        updatedAt: now,
      };
      Object.assign(file, changes);
      await this.files.update(file.id, changes);
      await this.audit.record(
        partner.workspaceId,
        { type: 'person', id: person.personId },
        `forex.${pastTense(decision)}`,
        file.id,
      );
      const facts = {
        file_id: file.id,
        partner_id: partner.id,
        dealer_person_id: person.personId,
        ...(decision === 'book' ? { deal_reference: value } : { note: value }),
        ...(quote ? quoteFacts(quote) : {}),
      };
      await this.chains.append(file.receiptId, { type: `forex.${pastTense(decision)}`, ...facts });
      await this.outbox.add({
        workspaceId: file.workspaceId,
        agentId: file.agentId,
        type: `forex.${pastTense(decision)}`,
        subjectId: decision === 'return' ? `${file.id}:returned:${file.returns}` : file.id,
        data: { ...facts, status: file.status, receipt_id: file.receiptId },
      });
      return file;
    });
  }

  /** Sweep: files whose person did not declare within the window become expired. */
  async expireOverdue(): Promise<number> {
    const ids = await this.files.overdueDeclarations(this.clock.now(), EXPIRY_BATCH);
    let done = 0;
    for (const id of ids) {
      try {
        done += await this.tx.run(async () => {
          const file = await this.files.lock(id, { skipLocked: true });
          const now = this.clock.now();
          if (
            !file ||
            effectiveFileStatus(file, now) !== 'expired' ||
            file.status !== 'awaiting_declaration'
          ) {
            return 0;
          }
          await this.expire(file, now);
          return 1;
        });
      } catch (err) {
        this.logger.warn(
          { err: (err as Error).message, id },
          'forex expiry failed; retried next tick',
        );
      }
    }
    return done;
  }

  private async expire(file: ForexFile, now: Date): Promise<void> {
    await this.files.update(file.id, { status: 'expired', updatedAt: now });
    file.status = 'expired';
    await this.audit.record(
      file.workspaceId,
      { type: 'system', id: 'forex' },
      'forex.expired',
      file.id,
    );
    await this.chains.append(file.receiptId, {
      type: 'forex.expired',
      file_id: file.id,
      reason: 'declaration_not_given',
      declaration_due_at: file.declarationDueAt?.toISOString() ?? null,
    });
  }
}

function onDesk(status: FileStatus): boolean {
  return ['submitted', 'booked', 'returned', 'rejected'].includes(status);
}

function pastTense(d: DealerDecision): 'booked' | 'returned' | 'rejected' {
  return d === 'book' ? 'booked' : d === 'return' ? 'returned' : 'rejected';
}
