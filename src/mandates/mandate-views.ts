import { Injectable } from '@nestjs/common';

import { AgentRepository } from '../accounts/agent.repository';
import { Clock } from '../common/clock';
import { Translator, translator } from '../common/i18n/catalogue';
import type { AutopayFrequency, MandateBillingCycle } from '../recurring/autopay-schedule';
import { formatIst, PERSON_TIME_ZONE } from '../web/local-time';
import type { Mandate, MandateStatus } from './mandate.entity';
import { effectiveMandateStatus, isRevocable } from './mandate.state';

/** Per cycle, as a person says it: "a month", "every two months" (catalogue mandates.cycle.per.*). */
function perCycle(tr: Translator, cycle: AutopayFrequency): string {
  return tr.t(`mandates.cycle.per.${cycle}`);
}

/** "At most one debit a month, up to ₹…": what a recurring mandate allows, in a sentence. */
export function recurringLabel(
  cycle: MandateBillingCycle,
  tr: Translator = translator('en'),
): string {
  return cycle === 'as_presented'
    ? tr.t('mandates.cycle.label_as_presented')
    : tr.t('mandates.cycle.label', { per: perCycle(tr, cycle) });
}

/** "once a month": how often a recurring mandate may debit, in words (the confirmation step's). */
export function cycleWords(cycle: MandateBillingCycle, tr: Translator = translator('en')): string {
  return cycle === 'as_presented'
    ? tr.t('mandates.cycle.as_presented')
    : tr.t('mandates.cycle.at_most_once', { per: perCycle(tr, cycle) });
}

const IST_WORDS = new Map<string, Intl.DateTimeFormat>();

/** "Friday, 25 December 2026 at 11:30 pm IST": a deadline a person reads, in words. */
export function istInWords(d: Date, tr: Translator = translator('en')): string {
  let f = IST_WORDS.get(tr.htmlLang);
  if (!f) {
    f = new Intl.DateTimeFormat(tr.htmlLang, {
      timeZone: PERSON_TIME_ZONE,
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      hour12: true,
    });
    IST_WORDS.set(tr.htmlLang, f);
  }
  return `${f.format(d)} IST`;
}

export { formatIst };

/** What the app pages show for a mandate: names instead of ids, status as of now. */
export interface MandateView {
  id: string;
  kind: Mandate['kind'];
  status: MandateStatus;
  statusLabel: string;
  /** The buyer agent's name (consent centre, amendments); its id goes under Details. */
  buyerAgentName: string;
  payees: string;
  /** The buyer agent's name alone (the authorisation page; its id goes under Details). */
  agentName: string;
  buyerAgentId: string;
  /** The sellers' names alone; null: any seller. */
  sellerNames: string[] | null;
  payeeAgentIds: string[] | null;
  kindWords: string;
  /** Recurring: "at most once a month". */
  cycleWords: string | null;
  /** Recurring with a fixed cycle: "a month" (what a debit's maximum adds up to per cycle). */
  perCycle: string | null;
  billingCycle: Mandate['billingCycle'];
  capPaise: number;
  /** Recurring mandates: the maximum per debit the agent proposed (the person may lower it). */
  proposedCapPaise: number | null;
  validFrom: string;
  validUntil: string;
  /** "Friday, 25 December 2026 at 11:30 pm IST (in 30 days)". */
  validUntilWords: string;
  railLabel: string;
  /** Recurring mandates: how often, and the notice the person gets. */
  recurring: string | null;
  description: string | null;
  authorisedAt: string | null;
  pending: boolean;
  revocable: boolean;
  authorizeHref: string;
}

/** Builds page models for mandates (the authorisation page and the consent centre). */
@Injectable()
export class MandateViews {
  constructor(
    private readonly agents: AgentRepository,
    private readonly clock: Clock,
  ) {}

  async describe(mandates: Mandate[], tr: Translator = translator('en')): Promise<MandateView[]> {
    const ids = [...new Set(mandates.flatMap((m) => [m.buyerAgentId, ...(m.payeeAgentIds ?? [])]))];
    const names = new Map((await this.agents.findByIds(ids)).map((a) => [a.id, a.name]));
    // Names only: ids go under a collapsed "Details" (docs/mandates.md).
    const nameOf = (id: string) => names.get(id) ?? tr.t('mandates.view.seller_gone');
    const now = this.clock.now();
    return mandates.map((m) => {
      const status = effectiveMandateStatus(m, now);
      return {
        id: m.id,
        kind: m.kind,
        status,
        statusLabel: tr.t(`mandates.status.${status}`),
        buyerAgentName: nameOf(m.buyerAgentId),
        payees: m.payeeAgentIds
          ? joinNames(m.payeeAgentIds.map(nameOf), tr)
          : tr.t('mandates.view.any_seller'),
        agentName: names.get(m.buyerAgentId) ?? tr.t('mandates.view.your_buyer_agent'),
        buyerAgentId: m.buyerAgentId,
        sellerNames: m.payeeAgentIds ? m.payeeAgentIds.map(nameOf) : null,
        payeeAgentIds: m.payeeAgentIds,
        kindWords: tr.t(`mandates.kind.${m.kind}`),
        cycleWords: m.billingCycle ? cycleWords(m.billingCycle, tr) : null,
        perCycle:
          m.billingCycle && m.billingCycle !== 'as_presented' ? perCycle(tr, m.billingCycle) : null,
        billingCycle: m.billingCycle,
        capPaise: m.perPaymentCapPaise,
        proposedCapPaise:
          m.kind === 'recurring' ? (m.proposedCapPaise ?? m.perPaymentCapPaise) : null,
        validFrom: tr.ist(m.validFrom),
        validUntil: tr.ist(m.validUntil),
        validUntilWords: tr.t(
          m.validUntil > now ? 'mandates.view.until_future' : 'mandates.view.until_ended',
          { when: istInWords(m.validUntil, tr), relative: tr.relative(m.validUntil, now) },
        ),
        railLabel: tr.t(`mandates.rail.${m.rail}`),
        recurring: m.billingCycle ? recurringLabel(m.billingCycle, tr) : null,
        description: describedAs(m, names, tr),
        authorisedAt: m.authorisedAt ? tr.ist(m.authorisedAt) : null,
        pending: status === 'pending_authorisation',
        revocable: isRevocable(status),
        authorizeHref: `/app/mandates/${m.id}/authorize`,
      };
    });
  }
}

/** "A, B and C" ("A, B और C"). */
export function joinNames(names: string[], tr: Translator = translator('en')): string {
  return names.length <= 1
    ? (names[0] ?? '')
    : tr.t('mandates.view.and', {
        first: names.slice(0, -1).join(', '),
        last: names[names.length - 1],
      });
}

/** What delegate_payment names a one-time mandate it makes (src/delegate-payment): not the person's words. */
const GENERATED_ONE_TIME = /^One payment for checkout \S+$/;

/**
 * A mandate's description as a person reads it: the agent's own words, except the name
 * delegate_payment gives a one-time mandate ("One payment for checkout cs_…"), which is said in
 * the page's language with the seller's name instead of the checkout's id.
 */
export function describedAs(
  m: Pick<Mandate, 'kind' | 'description' | 'payeeAgentIds'>,
  names: Map<string, string>,
  tr: Translator = translator('en'),
): string | null {
  if (m.kind !== 'one_time' || !m.description || !GENERATED_ONE_TIME.test(m.description)) {
    return m.description;
  }
  const sellers = (m.payeeAgentIds ?? []).flatMap((id) => (names.has(id) ? [names.get(id)!] : []));
  return sellers.length > 0
    ? tr.t('mandates.view.one_payment_to', { sellers: joinNames(sellers, tr) })
    : tr.t('mandates.view.one_payment');
}
