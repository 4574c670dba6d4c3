import { Injectable } from '@nestjs/common';

import { formatRupees } from '../common/money';
import { AppLayout } from '../web/app-layout.service';
import { formatIst } from '../web/local-time';
import type { SignedInPerson } from '../web/signed-in-person';
import type { MandateTerms } from './mandate-amendment.entity';
import { MandateAmendmentsService } from './mandate-amendments.service';
import { MandateViews } from './mandate-views';
import { MandatesService } from './mandates.service';

const STATUS_LABEL = {
  pending: 'waiting for your answer',
  authorised: 'authorised: the new terms apply',
  declined: 'declined: the old terms stay',
  expired: 'expired unanswered: the old terms stay',
  withdrawn: 'withdrawn: the mandate ended first',
} as const;

/** The amendment page's model: old and new terms side by side, in plain words. */
@Injectable()
export class MandateAmendmentPages {
  constructor(
    private readonly amendments: MandateAmendmentsService,
    private readonly mandates: MandatesService,
    private readonly views: MandateViews,
    private readonly layout: AppLayout,
  ) {}

  async page(person: SignedInPerson, mandateId: string, id: string, confirm?: string) {
    const { amendment: a, mandate } = await this.amendments.forPerson(
      person.workspaceId,
      mandateId,
      id,
    );
    const [view] = await this.views.describe([mandate]);
    const ids = [...(a.oldTerms.payee_agent_ids ?? []), ...(a.newTerms.payee_agent_ids ?? [])];
    const names = await this.mandates.agentNames(ids);
    const payees = (t: MandateTerms) =>
      t.payee_agent_ids ? t.payee_agent_ids.map((x) => names.get(x) ?? x).join(', ') : 'any seller';
    const capLabel = mandate.kind === 'recurring' ? 'Most per debit' : 'Most per payment';
    const rows = [
      {
        label: capLabel,
        key: 'per_payment_cap_paise',
        old: formatRupees(a.oldTerms.per_payment_cap_paise),
        new: formatRupees(a.newTerms.per_payment_cap_paise),
      },
      {
        label: 'Valid until',
        key: 'valid_until',
        old: formatIst(new Date(a.oldTerms.valid_until)),
        new: formatIst(new Date(a.newTerms.valid_until)),
      },
      {
        label: 'Who may be paid',
        key: 'payee_agent_ids',
        old: payees(a.oldTerms),
        new: payees(a.newTerms),
      },
    ].map((r) => ({ ...r, changed: (a.changed as string[]).includes(r.key) }));
    const pending = a.status === 'pending';
    return this.layout.page(person, 'Change to a mandate', {
      amendment: {
        id: a.id,
        mandateId: a.mandateId,
        status: a.status,
        statusLabel: STATUS_LABEL[a.status],
        reason: a.reason,
        expiresAt: formatIst(a.expiresAt),
        decidedAt: a.decidedAt ? formatIst(a.decidedAt) : null,
        pending,
      },
      mandate: view,
      rows,
      confirmAuthorise: pending && confirm === 'authorise',
      confirmDecline: pending && confirm === 'decline',
    });
  }

  /** Without `confirm=yes` only the confirmation is shown; with it the answer is recorded. */
  async answer(
    person: SignedInPerson,
    mandateId: string,
    id: string,
    decision: 'authorise' | 'decline',
    confirm?: string,
  ): Promise<string> {
    const base = `/app/mandates/${encodeURIComponent(mandateId)}/amendments/${encodeURIComponent(id)}`;
    if (confirm !== 'yes') {
      return `${base}?confirm=${decision}`;
    }
    await this.amendments.decide(person.workspaceId, mandateId, id, person.personId, decision);
    return base;
  }
}
