import { Controller, Get, Inject, OnModuleInit, Render } from '@nestjs/common';

import type { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { grievanceContact } from '../personal-data/grievance';
import { AppLayout } from '../web/app-layout.service';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import type { SignedInPerson } from '../web/signed-in-person';
import { noticeView } from './breach-notices.page';
import type { BreachRow } from './breach-register.repository';
import { BreachRegisterService } from './breach-register.service';

/**
 * GET /app/notices: the notices a signed-in person got about a personal-data breach (DPDP Rules
 * 2025 r.7(1): "through her user account"), newest first, in the words they were sent in. A person
 * sees only their own. The page speaks the person's language (src/breaches/breach-notices.page.ts).
 */
@AppController()
@SignedIn()
@Controller('app/notices')
export class BreachNoticesController implements OnModuleInit {
  constructor(
    private readonly breaches: BreachRegisterService,
    private readonly layout: AppLayout,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
  async page(@CurrentPerson() person: SignedInPerson, @PageLanguage() tr: Translator) {
    const notices = await this.breaches.noticesOfPerson(person.personId);
    const breaches = new Map<string, BreachRow>();
    for (const id of new Set(notices.map((n) => n.breachId))) {
      breaches.set(id, await this.breaches.get(id));
    }
    const g = grievanceContact(this.config);
    return this.layout.page(
      person,
      tr.t('notices.title'),
      { notices: notices.map((n) => noticeView(tr, n, breaches.get(n.breachId), g)) },
      'notices',
    );
  }
}
