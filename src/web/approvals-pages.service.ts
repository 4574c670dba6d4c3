import { Inject, Injectable } from '@nestjs/common';

import { ApprovalsService } from '../approvals/approvals.service';
import { AppError } from '../common/errors/app-error';
import { Translator, translator } from '../common/i18n/catalogue';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { AppLayout } from './app-layout.service';
import { ApprovalCards } from './approval-cards';
import type { SignedInPerson } from './signed-in-person';

export type DecisionVerb = 'approve' | 'deny';

const DECISION: Record<DecisionVerb, 'approved' | 'denied'> = {
  approve: 'approved',
  deny: 'denied',
};

/** The outcome page's notice for an answer that came after the approval was decided otherwise. */
const ALREADY_DECIDED = 'already_decided';

/**
 * Where an answer on an approval no longer pending goes (issue 40: a resubmitted decision shows
 * the first decision's outcome): the same answer resent → its outcome page, as the first time; a
 * different one (or one on an expired or withdrawn approval) → the outcome page saying the answer
 * changed nothing. Never an error page.
 */
function outcomePath(path: string, status: string, verb: DecisionVerb): string {
  return status === DECISION[verb] ? path : `${path}?notice=${ALREADY_DECIDED}`;
}

/**
 * The approvals pages: the inbox of cards, one approval with its outcome, and the confirmation
 * step that every answer on an amount above the approval threshold goes through (a plain
 * server-rendered form: works without JavaScript).
 */
@Injectable()
export class ApprovalsPagesService {
  constructor(
    private readonly approvals: ApprovalsService,
    private readonly cards: ApprovalCards,
    private readonly layout: AppLayout,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async inbox(person: SignedInPerson, tr: Translator = translator('en')) {
    const all = await this.approvals.list(person.workspaceId, 'all');
    const cards = await this.cards.build(
      [
        ...all.filter((a) => a.status === 'pending'),
        ...all.filter((a) => a.status !== 'pending').slice(0, 20),
      ],
      tr,
    );
    return this.layout.page(
      person,
      tr.t('approvals.title'),
      {
        pending: cards.filter((c) => c.pending),
        decided: cards.filter((c) => !c.pending),
        threshold: tr.rupees(this.config.approvalThresholdPaise),
      },
      'approvals',
    );
  }

  /**
   * One approval with its outcome. `notice` `already_decided`: the person's answer came after the
   * approval was decided otherwise (or expired, or was withdrawn), and changed nothing.
   */
  async detail(
    person: SignedInPerson,
    id: string,
    tr: Translator = translator('en'),
    notice?: unknown,
  ) {
    const [card] = await this.cards.build([await this.approvals.get(person.workspaceId, id)], tr);
    const alreadyDecided =
      notice === ALREADY_DECIDED && !card.pending
        ? tr.t('approvals.already_decided', { status: card.statusLabel })
        : null;
    return this.layout.page(
      person,
      card.pending
        ? tr.t('approvals.detail_title')
        : tr.t('approvals.detail_title_status', { status: card.statusLabel }),
      { card, alreadyDecided },
      'approvals',
    );
  }

  /** The confirmation page; an approval already answered shows its outcome instead (null). */
  async confirmPage(
    person: SignedInPerson,
    id: string,
    verb: DecisionVerb,
    tr: Translator = translator('en'),
  ) {
    const [card] = await this.cards.build([await this.approvals.get(person.workspaceId, id)], tr);
    if (!card.pending) {
      return null;
    }
    const approve = verb === 'approve';
    const refund = card.kind === 'refund';
    const vars = { amount: tr.rupees(card.amountPaise), seller: card.seller ?? '' };
    // "You are about to pay ₹2,500.00 to Chai Co.": what happens, in one sentence.
    const about = refund
      ? tr.t(approve ? 'approvals.confirm.refund_pay' : 'approvals.confirm.refund_refuse', vars)
      : tr.t(`approvals.confirm.${approve ? 'pay' : 'refuse'}${card.seller ? '_to' : ''}`, vars);
    const consequence = tr.t(
      `approvals.confirm.${refund ? 'refund_' : ''}${approve ? 'approve' : 'deny'}_text`,
    );
    return this.layout.page(
      person,
      tr.t(approve ? 'approvals.confirm.title_approve' : 'approvals.confirm.title_deny'),
      { card, approve, verb, about, consequence },
      'approvals',
    );
  }

  /**
   * A person's answer. Above the threshold without `confirm=yes` nothing is decided and the
   * person is sent to the confirmation step. Returns where to go next: the outcome page.
   */
  async decide(
    person: SignedInPerson,
    id: string,
    verb: DecisionVerb,
    confirmed: boolean,
  ): Promise<string> {
    const approval = await this.approvals.get(person.workspaceId, id);
    const path = `/app/approvals/${encodeURIComponent(approval.id)}`;
    if (approval.status !== 'pending') {
      return outcomePath(path, approval.status, verb);
    }
    if (this.cards.needsConfirm(approval) && !confirmed) {
      return `${path}/confirm?decision=${verb}`;
    }
    try {
      await this.approvals.decide(person.workspaceId, id, person.personId, DECISION[verb]);
    } catch (err) {
      // A twin of this answer (a double click, a resent form) decided it first, under the lock.
      if (!(err instanceof AppError) || err.code !== 'approval_already_decided') {
        throw err;
      }
      const now = await this.approvals.get(person.workspaceId, id);
      return outcomePath(path, now.status, verb);
    }
    return path;
  }
}
