import { Injectable } from '@nestjs/common';

import { ApprovalsService } from '../approvals/approvals.service';
import { AppLayout } from './app-layout.service';
import { ApprovalCards } from './approval-cards';
import type { SignedInPerson } from './signed-in-person';

export type DecisionVerb = 'approve' | 'deny';

const DECISION: Record<DecisionVerb, 'approved' | 'denied'> = {
  approve: 'approved',
  deny: 'denied',
};

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
  ) {}

  async inbox(person: SignedInPerson) {
    const all = await this.approvals.list(person.workspaceId, 'all');
    const cards = await this.cards.build([
      ...all.filter((a) => a.status === 'pending'),
      ...all.filter((a) => a.status !== 'pending').slice(0, 20),
    ]);
    return this.layout.page(
      person,
      'Approvals',
      { pending: cards.filter((c) => c.pending), decided: cards.filter((c) => !c.pending) },
      'approvals',
    );
  }

  async detail(person: SignedInPerson, id: string) {
    const [card] = await this.cards.build([await this.approvals.get(person.workspaceId, id)]);
    return this.layout.page(
      person,
      card.pending ? 'Approval' : `Approval: ${card.statusLabel}`,
      { card },
      'approvals',
    );
  }

  /** The confirmation page; an approval already answered shows its outcome instead (null). */
  async confirmPage(person: SignedInPerson, id: string, verb: DecisionVerb) {
    const [card] = await this.cards.build([await this.approvals.get(person.workspaceId, id)]);
    if (!card.pending) {
      return null;
    }
    const approve = verb === 'approve';
    return this.layout.page(
      person,
      approve ? 'Confirm approval' : 'Confirm denial',
      { card, approve, verb },
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
    if (approval.status === 'pending' && this.cards.needsConfirm(approval) && !confirmed) {
      return `${path}/confirm?decision=${verb}`;
    }
    await this.approvals.decide(person.workspaceId, id, person.personId, DECISION[verb]);
    return path;
  }
}
