import { Injectable } from '@nestjs/common';

import { AppLayout } from '../web/app-layout.service';
import type { SignedInPerson } from '../web/signed-in-person';
import { MandateViews } from './mandate-views';
import { MandatesService } from './mandates.service';

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

  async authorisationPage(person: SignedInPerson, id: string) {
    const mandate = await this.mandates.get(person.workspaceId, id);
    const [view] = await this.views.describe([mandate]);
    const firstDebit = await this.firstDebitOf(mandate.id);
    return this.layout.page(person, 'Authorise a mandate', { mandate: view, firstDebit });
  }

  async authorise(person: SignedInPerson, id: string): Promise<string> {
    const m = await this.mandates.authorise(person.workspaceId, id, person.personId);
    return `/app/mandates/${m.id}/authorize`;
  }

  async decline(person: SignedInPerson, id: string): Promise<string> {
    const m = await this.mandates.decline(person.workspaceId, id, person.personId);
    return `/app/mandates/${m.id}/authorize`;
  }
}
