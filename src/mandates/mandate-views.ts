import { Injectable } from '@nestjs/common';

import { AgentRepository } from '../accounts/agent.repository';
import { Clock } from '../common/clock';
import type { AutopayFrequency, MandateBillingCycle } from '../recurring/autopay-schedule';
import { formatIst, PERSON_TIME_ZONE, relativeTo } from '../web/local-time';
import type { Mandate, MandateRail, MandateStatus } from './mandate.entity';
import { effectiveMandateStatus, isRevocable } from './mandate.state';

const RAIL_LABEL: Record<MandateRail, string> = {
  upi_reserve_pay: 'UPI Reserve Pay (block once, debit several times)',
  upi_otm: 'UPI one-time mandate (block, debit once)',
  upi_autopay: 'UPI AutoPay (recurring debits, each announced 24 hours ahead)',
};

/** Per cycle, as a person says it: "a month", "every two months". */
const PER_CYCLE: Record<AutopayFrequency, string> = {
  daily: 'a day',
  weekly: 'a week',
  fortnightly: 'a fortnight',
  monthly: 'a month',
  bimonthly: 'every two months',
  quarterly: 'a quarter',
  half_yearly: 'every six months',
  yearly: 'a year',
};

/** "At most one debit a month, up to ₹…": what a recurring mandate allows, in a sentence. */
export function recurringLabel(cycle: MandateBillingCycle): string {
  if (cycle === 'as_presented') {
    return 'Debits as bills fall due, with no fixed cycle; you are told 24 hours before each, and can cancel it';
  }
  return `At most one debit ${PER_CYCLE[cycle]}; you are told 24 hours before each, and can cancel it`;
}

/** "once a month": how often a recurring mandate may debit, in words (the confirmation step's). */
export function cycleWords(cycle: MandateBillingCycle): string {
  return cycle === 'as_presented'
    ? 'whenever a bill falls due (no fixed cycle)'
    : `at most once ${PER_CYCLE[cycle]}`;
}

/** What each kind of mandate is, in words a person reads (the rail's name goes under Details). */
const KIND_WORDS: Record<Mandate['kind'], string> = {
  one_time: 'one payment, once',
  standing: 'payments within these limits until the end date',
  recurring: 'AutoPay: repeated debits on a cycle',
};

const IST_WORDS = new Intl.DateTimeFormat('en-IN', {
  timeZone: PERSON_TIME_ZONE,
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  hour12: true,
});

/** "Friday, 25 December 2026 at 11:30 pm IST": a deadline a person reads, in words. */
export function istInWords(d: Date): string {
  return `${IST_WORDS.format(d)} IST`;
}

const STATUS_LABEL: Record<MandateStatus, string> = {
  pending_authorisation: 'awaiting your authorisation',
  active: 'active',
  revoked: 'revoked',
  expired: 'expired',
};

export { formatIst };

/** What the app pages show for a mandate: names instead of ids, status as of now. */
export interface MandateView {
  id: string;
  kind: Mandate['kind'];
  status: MandateStatus;
  statusLabel: string;
  /** "Name (agt_…)" (consent centre, amendments). */
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

  async describe(mandates: Mandate[]): Promise<MandateView[]> {
    const ids = [...new Set(mandates.flatMap((m) => [m.buyerAgentId, ...(m.payeeAgentIds ?? [])]))];
    const names = new Map((await this.agents.findByIds(ids)).map((a) => [a.id, a.name]));
    const nameOf = (id: string) => (names.has(id) ? `${names.get(id)} (${id})` : id);
    const now = this.clock.now();
    return mandates.map((m) => {
      const status = effectiveMandateStatus(m, now);
      return {
        id: m.id,
        kind: m.kind,
        status,
        statusLabel: STATUS_LABEL[status],
        buyerAgentName: nameOf(m.buyerAgentId),
        payees: m.payeeAgentIds ? m.payeeAgentIds.map(nameOf).join(', ') : 'any seller',
        agentName: names.get(m.buyerAgentId) ?? 'your buyer agent',
        buyerAgentId: m.buyerAgentId,
        sellerNames: m.payeeAgentIds
          ? m.payeeAgentIds.map((id) => names.get(id) ?? 'a seller no longer listed')
          : null,
        payeeAgentIds: m.payeeAgentIds,
        kindWords: KIND_WORDS[m.kind],
        cycleWords: m.billingCycle ? cycleWords(m.billingCycle) : null,
        perCycle:
          m.billingCycle && m.billingCycle !== 'as_presented' ? PER_CYCLE[m.billingCycle] : null,
        billingCycle: m.billingCycle,
        capPaise: m.perPaymentCapPaise,
        proposedCapPaise:
          m.kind === 'recurring' ? (m.proposedCapPaise ?? m.perPaymentCapPaise) : null,
        validFrom: formatIst(m.validFrom),
        validUntil: formatIst(m.validUntil),
        validUntilWords:
          m.validUntil > now
            ? `${istInWords(m.validUntil)} (${relativeTo(m.validUntil, now)})`
            : `${istInWords(m.validUntil)} (ended)`,
        railLabel: RAIL_LABEL[m.rail],
        recurring: m.billingCycle ? recurringLabel(m.billingCycle) : null,
        description: m.description,
        authorisedAt: m.authorisedAt ? formatIst(m.authorisedAt) : null,
        pending: status === 'pending_authorisation',
        revocable: isRevocable(status),
        authorizeHref: `/app/mandates/${m.id}/authorize`,
      };
    });
  }
}
