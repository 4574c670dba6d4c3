import { Injectable } from '@nestjs/common';

import { AppLayout } from '../web/app-layout.service';
import type { SignedInPerson } from '../web/signed-in-person';
import { MandateViews } from './mandate-views';
import { MandatesService, MIN_MAX_PER_DEBIT_PAISE } from './mandates.service';

/** What the person typed as the maximum per debit (rupees, up to 2 decimals) in paise; null if not a number. */
export function rupeesInput(raw: string): number | null {
  const m = /^\s*(?:₹\s*)?(\d{1,7})(?:\.(\d{1,2}))?\s*$/.exec(raw.replace(/,/g, ''));
  return m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : null;
}

/** The error messages the authorisation page shows for the maximum per debit (?error=…). */
const MAX_ERRORS: Record<string, string> = {
  max_not_a_number:
    'Enter the maximum per debit as an amount in rupees, for example 499 or 499.50.',
  max_too_low: 'The maximum per debit must be at least ₹1.',
  max_above_proposal: 'The maximum per debit cannot be more than your agent asked for.',
};

/** A first debit scheduled with the mandate's registration, as its authorisation page shows it. */
export interface FirstDebitView {
  chargeId: string;
  amount: string;
  debitAt: string;
  seller: string;
  reason: string;
}

/**
 * The mandate authorisation page. Reached only with a person's session cookie (PersonGuard):
 * a bearer credential never signs anyone in, and a mandate of another workspace is a 404.
 */
@Injectable()
export class MandatePagesService {
  constructor(
    private readonly mandates: MandatesService,
    private readonly views: MandateViews,
    private readonly layout: AppLayout,
  ) {}

  private firstDebitOf: (mandateId: string) => Promise<FirstDebitView | null> = () =>
    Promise.resolve(null);

  /** src/recurring: the first debit to show (and authorise with the mandate) on this page. */
  showFirstDebit(lookup: (mandateId: string) => Promise<FirstDebitView | null>): void {
    this.firstDebitOf = lookup;
  }

  async authorisationPage(person: SignedInPerson, id: string, error?: string) {
    const mandate = await this.mandates.get(person.workspaceId, id);
    const [view] = await this.views.describe([mandate]);
    const firstDebit = await this.firstDebitOf(mandate.id);
    return this.layout.page(person, 'Authorise a mandate', {
      mandate: view,
      firstDebit,
      maxError: (error && MAX_ERRORS[error]) ?? null,
      proposedRupees:
        view.proposedCapPaise === null ? null : (view.proposedCapPaise / 100).toFixed(2),
    });
  }

  /**
   * Authorises the mandate; on a recurring one with the maximum per debit the person entered
   * (rupees, ₹1 up to the agent's proposal). A wrong maximum sends the person back to the page
   * with the reason, nothing changed.
   */
  async authorise(person: SignedInPerson, id: string, maxPerDebit?: string): Promise<string> {
    let maxPerDebitPaise: number | undefined;
    if (maxPerDebit !== undefined && maxPerDebit.trim() !== '') {
      const mandate = await this.mandates.get(person.workspaceId, id);
      const paise = rupeesInput(maxPerDebit);
      const proposal = mandate.proposedCapPaise ?? mandate.perPaymentCapPaise;
      const error =
        paise === null
          ? 'max_not_a_number'
          : paise < MIN_MAX_PER_DEBIT_PAISE
            ? 'max_too_low'
            : paise > proposal
              ? 'max_above_proposal'
              : null;
      if (error) {
        return `/app/mandates/${mandate.id}/authorize?error=${error}`;
      }
      maxPerDebitPaise = mandate.kind === 'recurring' ? (paise as number) : undefined;
    }
    const m = await this.mandates.authorise(person.workspaceId, id, person.personId, {
      maxPerDebitPaise,
    });
    return `/app/mandates/${m.id}/authorize`;
  }

  async decline(person: SignedInPerson, id: string): Promise<string> {
    const m = await this.mandates.decline(person.workspaceId, id, person.personId);
    return `/app/mandates/${m.id}/authorize`;
  }
}
