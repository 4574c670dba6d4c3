import { Controller, Get, OnModuleInit, Render } from '@nestjs/common';

import { AppLayout } from '../web/app-layout.service';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { formatIst } from '../web/local-time';
import type { SignedInPerson } from '../web/signed-in-person';
import { BreachRegisterService } from './breach-register.service';

/**
 * GET /app/notices: the notices a signed-in person got about a personal-data breach (DPDP Rules
 * 2025 r.7(1): "through her user account"), newest first, in the words they were sent in. A person
 * sees only their own.
 */
@AppController()
@SignedIn()
@Controller('app/notices')
export class BreachNoticesController implements OnModuleInit {
  constructor(
    private readonly breaches: BreachRegisterService,
    private readonly layout: AppLayout,
  ) {}

  onModuleInit(): void {
    this.layout.registerNav({
      key: 'notices',
      label: 'app.nav.notices',
      href: '/app/notices',
      order: 80,
    });
  }

  @Get()
  @Render('app/breach-notices')
  async page(@CurrentPerson() person: SignedInPerson) {
    const notices = await this.breaches.noticesOfPerson(person.personId);
    return this.layout.page(
      person,
      'Notices',
      {
        notices: notices.map((n) => ({
          id: n.id,
          sentAt: formatIst(n.createdAt),
          sections: n.sections,
        })),
      },
      'notices',
    );
  }
}
