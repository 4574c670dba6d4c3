import { Inject, Injectable } from '@nestjs/common';

import { APP_CONFIG, AppConfig } from '../config/app.config';
import type { SignedInPerson } from './signed-in-person';

export interface NavItem {
  /** Stable key; registering the same key again replaces the entry. */
  key: string;
  /** Catalogue key of the link's words (`app.nav.*`, docs/languages.md); the header translates it. */
  label: string;
  /** null: announced but not built yet (shown greyed out). */
  href: string | null;
  order: number;
  /** Shown only to people of these workspace kinds (e.g. the dealer desk); all when absent. */
  workspaceKinds?: string[];
}

/** Locals every signed-in page gets; the app_header partial renders them. */
export interface AppPageLocals {
  title: string;
  me: { name: string; email: string; workspaceName: string };
  nav: (NavItem & { current: boolean })[];
  csrfToken: string;
  modeBanner: string | null;
}

const PLACEHOLDERS: NavItem[] = [
  { key: 'home', label: 'app.nav.home', href: '/app', order: 0 },
  { key: 'approvals', label: 'app.nav.approvals', href: null, order: 10 },
  { key: 'consent', label: 'app.nav.consent', href: null, order: 20 },
];

/**
 * Shared frame of the signed-in app: navigation and header locals. Feature modules that add
 * pages (approvals, consent centre, mandates, dealer desk) import WebModule and call
 * registerNav() in onModuleInit; their handlers return layout.page(person, title, data).
 */
@Injectable()
export class AppLayout {
  private readonly items = new Map<string, NavItem>(PLACEHOLDERS.map((i) => [i.key, i]));

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  registerNav(item: NavItem): void {
    this.items.set(item.key, item);
  }

  nav(): NavItem[] {
    return [...this.items.values()].sort(
      (a, b) => a.order - b.order || a.label.localeCompare(b.label),
    );
  }

  /** `current`: the nav key of this page (marked aria-current="page"). */
  page<T extends object>(
    person: SignedInPerson,
    title: string,
    data: T,
    current?: string,
  ): AppPageLocals & T {
    return {
      title,
      me: { name: person.name, email: person.email, workspaceName: person.workspaceName },
      nav: this.nav()
        .filter((i) => !i.workspaceKinds || i.workspaceKinds.includes(person.workspaceKind))
        .map((i) => ({ ...i, current: i.key === current })),
      csrfToken: person.csrfToken,
      modeBanner: this.modeBanner(),
      ...data,
    };
  }

  /**
   * Pages outside a session (sign-in, sign-up) still show which mode this service runs in: the
   * catalogue key of the banner's words (views/partials/mode_banner.hbs).
   */
  modeBanner(): string | null {
    switch (this.config.mode) {
      case 'sandbox':
        return 'common.mode.sandbox';
      case 'test':
        return 'common.mode.test';
      case 'live':
        return null;
    }
  }
}
