import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { AppAuthController } from './app-auth.controller';
import { AppLayout } from './app-layout.service';
import { AppSignupService } from './app-signup.service';
import { CsrfGuard, PreSessionCsrfGuard } from './csrf.guard';
import { NoStoreInterceptor } from './no-store.interceptor';
import { PersonGuard } from './person.guard';
import { PersonSessionRepository } from './person-session.repository';
import { PersonSessionService } from './person-session.service';
import { SessionCookies } from './session-cookies';

/** What page modules use: sessions, the guards behind @SignedIn(), and the layout. */
const FOR_PAGES = [
  PersonSessionService,
  SessionCookies,
  PersonGuard,
  CsrfGuard,
  PreSessionCsrfGuard,
  NoStoreInterceptor,
  AppLayout,
];

/**
 * The person-facing app under /app: sessions, CSRF, layout and the account pages. Feature modules
 * that add pages import this module and use @SignedIn(), @CurrentPerson() and AppLayout. The home,
 * approvals, receipts and developer pages live in AppPagesModule (app-pages.module.ts).
 */
@Module({
  imports: [AccountsModule],
  controllers: [AppAuthController],
  providers: [...FOR_PAGES, PersonSessionRepository, AppSignupService],
  exports: FOR_PAGES,
})
export class WebModule {}
