import { Injectable } from '@nestjs/common';

import { Translator, translator } from '../common/i18n/catalogue';
import { AppLayout } from '../web/app-layout.service';
import type { SignedInPerson } from '../web/signed-in-person';
import type { MandateTerms } from './mandate-amendment.entity';
import { MandateAmendmentsService } from './mandate-amendments.service';
import { joinNames, MandateViews } from './mandate-views';
import { MandatesService } from './mandates.service';

/** The amendment page's model: old and new terms side by side, in plain words. */
@Injectable()
export class MandateAmendmentPages {
  constructor(
    private readonly amendments: MandateAmendmentsService,
    private readonly mandates: MandatesService,
    private readonly views: MandateViews,
    private readonly layout: AppLayout,
  ) {}

  async page(
    person: SignedInPerson,
    mandateId: string,
    id: string,
    confirm?: string,
    tr: Translator = translator('en'),
  ) {
    const { amendment: a, mandate } = await this.amendments.forPerson(
      person.workspaceId,
      mandateId,
      id,
    );
    const [view] = await this.views.describe([mandate], tr);
    const ids = [...(a.oldTerms.payee_agent_ids ?? []), ...(a.newTerms.payee_agent_ids ?? [])];
    const names = await this.mandates.agentNames(ids);
    const payees = (t: MandateTerms) =>
      t.payee_agent_ids
        ? joinNames(
            t.payee_agent_ids.map((x) => names.get(x) ?? tr.t('mandates.view.seller_gone')),
            tr,
          )
        : tr.t('mandates.view.any_seller');
    const capLabel = tr.t(
      mandate.kind === 'recurring'
        ? 'mandates.amendment.row.per_debit'
        : 'mandates.amendment.row.per_payment',
    );
    const rows = [
      {
        label: capLabel,
        key: 'per_payment_cap_paise',
        old: tr.rupees(a.oldTerms.per_payment_cap_paise),
        new: tr.rupees(a.newTerms.per_payment_cap_paise),
      },
      {
        label: tr.t('mandates.amendment.row.valid_until'),
        key: 'valid_until',
        old: tr.ist(new Date(a.oldTerms.valid_until)),
        new: tr.ist(new Date(a.newTerms.valid_until)),
      },
      {
        label: tr.t('mandates.amendment.row.payees'),
        key: 'payee_agent_ids',
        old: payees(a.oldTerms),
        new: payees(a.newTerms),
      },
    ].map((r) => ({ ...r, changed: (a.changed as string[]).includes(r.key) }));
    const pending = a.status === 'pending';
    return this.layout.page(person, tr.t('mandates.amendment.title'), {
      amendment: {
        id: a.id,
        mandateId: a.mandateId,
        status: a.status,
        statusLabel: tr.t(`mandates.amendment.status.${a.status}`),
        reason: a.reason,
        expiresAt: tr.ist(a.expiresAt),
        decidedAt: a.decidedAt ? tr.ist(a.decidedAt) : null,
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
