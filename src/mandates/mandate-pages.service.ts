import { Injectable } from '@nestjs/common';

import { AppLayout } from '../web/app-layout.service';
import type { SignedInPerson } from '../web/signed-in-person';
import { MandateViews } from './mandate-views';
import { MandatesService } from './mandates.service';

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

  async authorisationPage(person: SignedInPerson, id: string) {
    const mandate = await this.mandates.get(person.workspaceId, id);
    const [view] = await this.views.describe([mandate]);
    return this.layout.page(person, 'Authorise a mandate', { mandate: view });
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
