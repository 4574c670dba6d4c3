import { Inject, Injectable } from '@nestjs/common';

import { CheckoutSessionRepository } from '../checkout/checkout-session.repository';
import { AppError } from '../common/errors/app-error';
import { Translator, translator } from '../common/i18n/catalogue';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { DelegatedTokenRepository } from '../delegate-payment/delegated-token.repository';
import { AppLayout } from '../web/app-layout.service';
import type { ItemLine } from '../web/app-read-model';
import type { SignedInPerson } from '../web/signed-in-person';
import type { Mandate } from './mandate.entity';
import { joinNames, MandateView, MandateViews } from './mandate-views';
import { MandatesService, MIN_MAX_PER_DEBIT_PAISE } from './mandates.service';

/** What the person typed as the maximum per debit (rupees, up to 2 decimals) in paise; null if not a number. */
export function rupeesInput(raw: string): number | null {
  const m = /^\s*(?:₹\s*)?(\d{1,7})(?:\.(\d{1,2}))?\s*$/.exec(raw.replace(/,/g, ''));
  return m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : null;
}

/** The authorisation page's notice (?error=already_decided): the person's answer changed nothing. */
const ALREADY_DECIDED = 'already_decided';

type MandateDecision = 'authorise' | 'decline';

/** A mandate no longer awaiting its person's answer (an expired one keeps its own refusal). */
function isDecided(m: Mandate): boolean {
  return m.status !== 'pending_authorisation' && m.status !== 'expired';
}

/**
 * Where an answer on a mandate already decided goes (issue 40: a resubmitted decision shows the
 * first decision's outcome): the same answer resent (authorised, or declined before any
 * authorisation) → its authorisation page, as the first time; a different one → that page saying
 * the answer changed nothing. Never an error page.
 */
function decidedOutcome(m: Mandate, verb: MandateDecision): string {
  const page = `/app/mandates/${m.id}/authorize`;
  const same =
    verb === 'authorise'
      ? m.authorisedAt !== null
      : m.authorisedAt === null && m.status === 'revoked';
  return same ? page : `${page}?error=${ALREADY_DECIDED}`;
}

/** The error codes the authorisation page shows for the maximum per debit (?error=…; mandates.errors.*). */
const MAX_ERRORS = new Set(['max_not_a_number', 'max_too_low', 'max_above_proposal']);

/** A first debit scheduled with the mandate's registration, as its authorisation page shows it. */
export interface FirstDebitView {
  chargeId: string;
  amount: string;
  amountPaise: number;
  debitAt: string;
  seller: string;
  reason: string;
}

/** The one purchase a one-time mandate pays for: the checkout's lines, read through its owner. */
export interface PurchaseView {
  checkoutSessionId: string;
  items: ItemLine[];
  totalPaise: number;
}

/** The person's maximum per debit as typed: absent, refused (with the error code), or in paise. */
type MaxInput =
  { kind: 'absent' } | { kind: 'error'; error: string } | { kind: 'ok'; paise: number };

/**
 * The mandate authorisation page and, for a recurring (AutoPay) mandate, its confirmation step.
 * Reached only with a person's session cookie (PersonGuard): a bearer credential never signs
 * anyone in, and a mandate of another workspace is a 404. The page says in words who asks, who may
 * be paid, for what, how much, until when, what needs the person's approval and how to revoke;
 * ids go under a collapsed "Details".
 */
@Injectable()
export class MandatePagesService {
  constructor(
    private readonly mandates: MandatesService,
    private readonly views: MandateViews,
    private readonly layout: AppLayout,
    private readonly tokens: DelegatedTokenRepository,
    private readonly sessions: CheckoutSessionRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private firstDebitOf: (mandateId: string, tr: Translator) => Promise<FirstDebitView | null> =
    () => Promise.resolve(null);

  /** src/recurring: the first debit to show (and authorise with the mandate) on this page. */
  showFirstDebit(
    lookup: (mandateId: string, tr: Translator) => Promise<FirstDebitView | null>,
  ): void {
    this.firstDebitOf = lookup;
  }

  async authorisationPage(
    person: SignedInPerson,
    id: string,
    error?: string,
    tr: Translator = translator('en'),
  ) {
    const mandate = await this.mandates.get(person.workspaceId, id);
    const [view] = await this.views.describe([mandate], tr);
    const firstDebit = await this.firstDebitOf(mandate.id, tr);
    const purchase = await this.purchaseOf(mandate);
    const terms = this.terms(view, tr);
    return this.layout.page(person, headingOf(view, tr), {
      mandate: view,
      heading: headingOf(view, tr),
      ask: tr.t(`mandates.authorize.ask.${view.pending ? 'pending' : 'done'}_${view.kind}`, {
        agent: view.agentName,
        sellers: terms.sellersOrAny,
        cycle: view.cycleWords ?? '',
      }),
      capWords: capWords(view, terms, purchase, tr),
      firstDebit,
      purchase,
      terms,
      maxError: error && MAX_ERRORS.has(error) ? tr.t(`mandates.errors.${error}`) : null,
      alreadyDecided:
        error === ALREADY_DECIDED && !view.pending
          ? tr.t('mandates.authorize.already_decided', { status: view.statusLabel })
          : null,
      proposedRupees:
        view.proposedCapPaise === null ? null : (view.proposedCapPaise / 100).toFixed(2),
      needsConfirm: mandate.kind === 'recurring',
    });
  }

  /**
   * The confirmation step of a recurring mandate (GET …/authorize/confirm?max_per_debit=…): the
   * terms once more with the maximum the person chose, carried on to the final POST. A mandate not
   * awaiting authorisation, or not recurring, goes back to its page; a wrong maximum too, with why.
   */
  async confirmPage(
    person: SignedInPerson,
    id: string,
    maxPerDebit?: string,
    tr: Translator = translator('en'),
  ): Promise<{ redirect: string } | { locals: object }> {
    const mandate = await this.mandates.get(person.workspaceId, id);
    const back = `/app/mandates/${mandate.id}/authorize`;
    if (
      mandate.kind !== 'recurring' ||
      this.mandates.statusOf(mandate) !== 'pending_authorisation'
    ) {
      return { redirect: back };
    }
    const max = checkMax(mandate, maxPerDebit);
    if (max.kind === 'error') {
      return { redirect: `${back}?error=${max.error}` };
    }
    const [view] = await this.views.describe([mandate], tr);
    const proposed = view.proposedCapPaise ?? view.capPaise;
    const maxPaise = max.kind === 'ok' ? max.paise : proposed;
    const firstDebit = await this.firstDebitOf(mandate.id, tr);
    return {
      locals: this.layout.page(person, tr.t('mandates.confirm.title'), {
        mandate: view,
        firstDebit,
        // Debited under the mandate, a first debit above the person's maximum is refused.
        firstDebitAboveMax: firstDebit !== null && firstDebit.amountPaise > maxPaise,
        terms: this.terms(view, tr, maxPaise),
        maxPaise,
        proposedPaise: proposed,
        lowered: maxPaise < proposed,
        maxRupees: max.kind === 'ok' ? (max.paise / 100).toFixed(2) : null,
      }),
    };
  }

  /**
   * Authorises the mandate; on a recurring one with the maximum per debit the person entered
   * (rupees, ₹1 up to the agent's proposal). A wrong maximum sends the person back to the page
   * with the reason, nothing changed. A recurring mandate awaiting authorisation is authorised
   * only with `confirm=yes` (the confirmation step's form); without it nothing changes and the
   * person is sent to that step, the maximum carried along.
   */
  async authorise(
    person: SignedInPerson,
    id: string,
    maxPerDebit: string | undefined,
    confirmed: boolean,
  ): Promise<string> {
    const mandate = await this.mandates.get(person.workspaceId, id);
    if (isDecided(mandate)) {
      return decidedOutcome(mandate, 'authorise');
    }
    const max = checkMax(mandate, maxPerDebit);
    if (max.kind === 'error') {
      return `/app/mandates/${mandate.id}/authorize?error=${max.error}`;
    }
    const maxPerDebitPaise =
      max.kind === 'ok' && mandate.kind === 'recurring' ? max.paise : undefined;
    if (
      mandate.kind === 'recurring' &&
      !confirmed &&
      this.mandates.statusOf(mandate) === 'pending_authorisation'
    ) {
      const query =
        maxPerDebitPaise === undefined
          ? ''
          : `?max_per_debit=${(maxPerDebitPaise / 100).toFixed(2)}`;
      return `/app/mandates/${mandate.id}/authorize/confirm${query}`;
    }
    return this.decideOnce(person, id, 'authorise', () =>
      this.mandates.authorise(person.workspaceId, id, person.personId, { maxPerDebitPaise }),
    );
  }

  async decline(person: SignedInPerson, id: string): Promise<string> {
    const mandate = await this.mandates.get(person.workspaceId, id);
    if (isDecided(mandate)) {
      return decidedOutcome(mandate, 'decline');
    }
    return this.decideOnce(person, id, 'decline', () =>
      this.mandates.decline(person.workspaceId, id, person.personId),
    );
  }

  /**
   * The decision, then its outcome page; when a twin of it (a double click, a resent form) decided
   * the mandate first under its lock (`mandate_not_pending`), the outcome page of the decision
   * recorded (decidedOutcome).
   */
  private async decideOnce(
    person: SignedInPerson,
    id: string,
    verb: MandateDecision,
    decide: () => Promise<Mandate>,
  ): Promise<string> {
    try {
      const m = await decide();
      return `/app/mandates/${m.id}/authorize`;
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'mandate_not_pending') {
        throw err;
      }
      return decidedOutcome(await this.mandates.get(person.workspaceId, id), verb);
    }
  }

  /**
   * A one-time mandate's purchase: the checkout session of the token delegate_payment minted with
   * it, its lines as the person reads them. Null for other mandates or when the session is gone.
   */
  private async purchaseOf(mandate: Mandate): Promise<PurchaseView | null> {
    if (mandate.kind !== 'one_time') {
      return null;
    }
    const sessionId = await this.tokens.firstCheckoutSessionIdOnMandate(mandate.id);
    const session = sessionId ? await this.sessions.findById(sessionId) : null;
    if (!session) {
      return null;
    }
    const items = session.lineItems.map((l) => ({
      name: l.name,
      quantity: l.quantity,
      unitPaise: l.unit_paise,
      amountPaise: l.unit_paise * l.quantity,
    }));
    return {
      checkoutSessionId: session.id,
      items,
      totalPaise: items.reduce((sum, l) => sum + l.amountPaise, 0),
    };
  }

  /** The limits in words, the same on the page and its confirmation step. */
  private terms(view: MandateView, tr: Translator, maxPaise = view.capPaise): Terms {
    const sellers = view.sellerNames ? joinNames(view.sellerNames, tr) : null;
    return {
      maxPaise,
      approvalThresholdPaise: this.config.approvalThresholdPaise,
      /** No payment under this mandate can reach the threshold: say so, not only the rule. */
      belowThreshold: maxPaise <= this.config.approvalThresholdPaise,
      dailyCapPaise: this.config.dailyCapPaise,
      sellers,
      sellersOrAny: sellers ?? tr.t('mandates.view.any_seller'),
    };
  }
}

interface Terms {
  maxPaise: number;
  approvalThresholdPaise: number;
  belowThreshold: boolean;
  dailyCapPaise: number;
  sellers: string | null;
  sellersOrAny: string;
}

/** "How much" on the authorisation page, in words: the cap, per payment or per debit and cycle. */
function capWords(
  view: MandateView,
  terms: Terms,
  purchase: PurchaseView | null,
  tr: Translator,
): string {
  const cap = tr.rupees(view.capPaise);
  switch (view.kind) {
    case 'one_time':
      return purchase
        ? tr.t('mandates.authorize.terms.cap_one_time_purchase', {
            cap,
            total: tr.rupees(purchase.totalPaise),
          })
        : tr.t('mandates.authorize.terms.cap_one_time', { cap });
    case 'standing':
      return tr.t('mandates.authorize.terms.cap_standing', {
        cap,
        agent: view.agentName,
        daily: tr.rupees(terms.dailyCapPaise),
      });
    case 'recurring': {
      const words = view.perCycle
        ? tr.t('mandates.authorize.terms.cap_recurring_cycle', { cap, per: view.perCycle })
        : tr.t('mandates.authorize.terms.cap_recurring', { cap });
      return view.pending ? `${words}; ${tr.t('mandates.authorize.terms.cap_can_lower')}` : words;
    }
  }
}

/** The page's heading: what the person is asked, in words. */
function headingOf(view: MandateView, tr: Translator): string {
  const sellers = view.sellerNames ? joinNames(view.sellerNames, tr) : null;
  const vars = { sellers: sellers ?? '', agent: view.agentName };
  const h = (key: string) => tr.t(`mandates.heading.${key}${sellers ? '_to' : ''}`, vars);
  if (!view.pending) {
    return view.kind === 'recurring' ? h('autopay') : tr.t('mandates.heading.mandate_for', vars);
  }
  return h(view.kind);
}

/** The maximum per debit as typed: ₹1 up to the agent's proposal (or the cap). */
function checkMax(mandate: Mandate, raw: string | undefined): MaxInput {
  if (raw === undefined || raw.trim() === '') {
    return { kind: 'absent' };
  }
  const paise = rupeesInput(raw);
  const proposal = mandate.proposedCapPaise ?? mandate.perPaymentCapPaise;
  if (paise === null) {
    return { kind: 'error', error: 'max_not_a_number' };
  }
  if (paise < MIN_MAX_PER_DEBIT_PAISE) {
    return { kind: 'error', error: 'max_too_low' };
  }
  if (paise > proposal) {
    return { kind: 'error', error: 'max_above_proposal' };
  }
  return { kind: 'ok', paise };
}
