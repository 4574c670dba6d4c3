import type { IstWindow } from '../config/app.config';
import { Rule, RuleRegistry } from './rule-registry';
import type { TcsTable, TcsYear } from './tcs';

/**
 * Every rule the service applies, with its dated versions and sources (../shared/DOMAIN.md item
 * numbers). Each names the test that pins it; test/unit/rules/rules-doc.spec.ts fails when that
 * test is missing and when docs/rules.md is not what `npm run rules:doc` writes from this list.
 */

const PINS = 'test/unit/rules/rule-values.spec.ts';
const HOUR_MS = 3_600_000;

const rupees = (paise: number) =>
  `₹${(paise / 100).toLocaleString('en-IN', { maximumFractionDigits: 2 })} (${paise} paise)`;
const usd = (cents: number) =>
  `USD ${(cents / 100).toLocaleString('en-US', { maximumFractionDigits: 2 })} (${cents} US cents)`;
const hhmm = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
const pct = (bps: number) => `${bps / 100}%`;
const tcsYear = (y: TcsYear) =>
  `threshold ${rupees(y.thresholdPaise)} per PAN per FY; above it: education by loan ` +
  `${pct(y.educationLoan.aboveThresholdBps)}, education/medical ` +
  `${pct(y.educationMedical.aboveThresholdBps)}, other ${pct(y.other.aboveThresholdBps)}; ` +
  `within it: ${pct(y.educationLoan.withinThresholdBps)} / ` +
  `${pct(y.educationMedical.withinThresholdBps)} / ${pct(y.other.withinThresholdBps)}`;

const E_MANDATE_2026 =
  'RBI Digital Payments – E-Mandate Framework, 2026 (21 Apr 2026, effective at once), as reported (DOMAIN.md 12a)';
const NPCI_AUTOPAY_2025 =
  'NPCI AutoPay execution guidelines, in force 1 Aug 2025, as reported by several outlets (DOMAIN.md A.11)';
const RESERVE_PAY_2025 =
  'NPCI OC 228 (Oct 2025), UPI Reserve Pay, as reported; one source says ₹1 lakh (DOMAIN.md 12b, A.7)';
const NOT_APPLIED_RESERVE =
  'not applied by the service: the gateway holds and enforces the block (docs/gateway.md "Reserve Pay")';

const approvalThreshold: Rule<number> = {
  id: 'payments.approval_threshold',
  title: 'A person approves any payment above this amount',
  kind: 'product',
  unit: 'paise',
  versions: [
    {
      effectiveFrom: null,
      value: 200_000,
      source: 'Product spec §§1, 2, 8 (DOMAIN.md 12): "above ₹2,000"; exactly ₹2,000 is not above',
      certainty: 'certain',
    },
  ],
  configurable: {
    env: 'APPROVAL_THRESHOLD_PAISE',
    note: 'the configured value wins over the registry at every date',
  },
  appliedIn: [
    'src/payments/payments.service.ts',
    'src/recurring/recurring-charges.service.ts',
    'src/checkout/checkout-completion.service.ts',
    'src/web/approval-cards.ts',
  ],
  pinnedBy: { file: PINS, title: 'asks a person above ₹2,000, not at exactly ₹2,000' },
  format: rupees,
};

const dailyCap: Rule<number> = {
  id: 'payments.daily_cap_default',
  title: "A buyer agent's daily spending cap (default)",
  kind: 'product',
  unit: 'paise',
  versions: [
    {
      effectiveFrom: null,
      value: 5_000_000,
      source: 'Our sandbox default; spec §8: limits are sandbox values to be confirmed',
      certainty: 'uncertain',
    },
  ],
  configurable: {
    env: 'DAILY_CAP_PAISE',
    note: 'the configured value wins over the registry at every date',
  },
  appliedIn: ['src/payments/payments.service.ts', 'src/payments/buyer-rules.ts'],
  pinnedBy: { file: PINS, title: 'refuses a payment that takes the day above the daily cap' },
  format: rupees,
};

const tokenLifetime: Rule<number> = {
  id: 'delegated_token.max_lifetime',
  title: 'A delegated payment token expires at most this long after it is issued',
  kind: 'product',
  unit: 'ms',
  versions: [
    {
      effectiveFrom: null,
      value: 7 * 24 * HOUR_MS,
      source: 'Product spec §§1, 2, 8 (DOMAIN.md 12): ≤ 7 days',
      certainty: 'certain',
    },
  ],
  configurable: null,
  appliedIn: ['src/delegate-payment/delegate-payment.service.ts'],
  pinnedBy: { file: PINS, title: 'lets a delegated token live exactly 7 days, not a moment more' },
  format: (ms) => `${ms / (24 * HOUR_MS)} days (${ms} ms)`,
};

const afaCeiling: Rule<number> = {
  id: 'autopay.afa_free_ceiling',
  title: 'Largest recurring (AutoPay) debit without the additional factor of authentication',
  kind: 'regulatory',
  unit: 'paise',
  versions: [
    {
      effectiveFrom: '2023-12-14',
      value: 1_500_000,
      source:
        'RBI Dec 2023; NPCI circular OC-151A, 14 Dec 2023 (DOMAIN.md A.3); restated by the RBI E-Mandate Framework, 2026 (DOMAIN.md 12a)',
      certainty: 'certain',
    },
  ],
  configurable: null,
  appliedIn: ['src/recurring/autopay-schedule.ts', 'src/recurring/recurring-charges.service.ts'],
  pinnedBy: { file: PINS, title: 'needs AFA above ₹15,000, not at exactly ₹15,000' },
  format: rupees,
  notes:
    'The ₹1 lakh ceiling for mutual funds, insurance premiums and credit-card bills is not applied: the service does not know a debit’s category, so it applies ₹15,000 to all.',
};

const noticeLead: Rule<number> = {
  id: 'autopay.pre_debit_notice_lead',
  title: 'Least time between the pre-debit notice and the recurring debit',
  kind: 'regulatory',
  unit: 'ms',
  versions: [
    {
      effectiveFrom: null,
      value: 24 * HOUR_MS,
      source: `RBI e-mandate framework (DOMAIN.md A.2); ${E_MANDATE_2026}; product spec §8`,
      certainty: 'certain',
    },
  ],
  configurable: null,
  appliedIn: [
    'src/recurring/autopay-schedule.ts',
    'src/config/app.config.ts (autopay.noticeLeadMs)',
  ],
  pinnedBy: { file: PINS, title: 'debits no earlier than 24 h after the pre-debit notice' },
  format: (ms) => `${ms / HOUR_MS} hours (${ms} ms)`,
};

const blockedWindows: Rule<IstWindow[]> = {
  id: 'autopay.blocked_windows_ist',
  title: 'IST windows in which no scheduled AutoPay debit is executed (peak hours)',
  kind: 'regulatory',
  unit: 'IST minute-of-day ranges [start, end)',
  versions: [
    {
      effectiveFrom: '2025-08-01',
      value: [
        { startMinute: 600, endMinute: 780 },
        { startMinute: 1020, endMinute: 1290 },
      ],
      source: NPCI_AUTOPAY_2025,
      certainty: 'certain',
    },
  ],
  configurable: {
    env: 'AUTOPAY_BLOCKED_WINDOWS_IST',
    note: 'DOMAIN.md A.11 asks for the windows in configuration; the configured windows win over the registry at every date',
  },
  appliedIn: ['src/recurring/autopay-schedule.ts', 'src/recurring/recurring-charges.service.ts'],
  pinnedBy: { file: PINS, title: 'blocks 10:00–13:00 and 17:00–21:30 IST from 1 Aug 2025' },
  format: (ws) => ws.map((w) => `${hhmm(w.startMinute)}–${hhmm(w.endMinute)}`).join(', '),
};

const statusCheckMax: Rule<number> = {
  id: 'autopay.status_check_max',
  title: 'Status checks of an AutoPay debit whose outcome is unknown, at most',
  kind: 'regulatory',
  unit: 'checks',
  versions: [
    { effectiveFrom: '2025-08-01', value: 3, source: NPCI_AUTOPAY_2025, certainty: 'certain' },
  ],
  configurable: null,
  appliedIn: ['src/payments/status-check-pacing.ts'],
  pinnedBy: {
    file: 'test/e2e/autopay-status-checks.e2e-spec.ts',
    title:
      'asks the gateway exactly 3 times, at least 90 s apart, then leaves it to the daily reconciliation',
  },
  format: (n) => `${n} checks, then the daily settlement reconciliation`,
};

const statusCheckSpacing: Rule<number> = {
  id: 'autopay.status_check_min_spacing',
  title: 'Least time between two asks about the same AutoPay debit (the debit itself included)',
  kind: 'regulatory',
  unit: 'ms',
  versions: [
    { effectiveFrom: '2025-08-01', value: 90_000, source: NPCI_AUTOPAY_2025, certainty: 'certain' },
  ],
  configurable: null,
  appliedIn: ['src/payments/status-check-pacing.ts'],
  pinnedBy: { file: PINS, title: 'spaces AutoPay status checks by exactly 90 s or more' },
  format: (ms) => `${ms / 1000} s`,
};

/** A Reserve Pay cap: reported, uncertain, and enforced by the gateway rather than here. */
function reservePayCap(
  rule: Pick<Rule<number>, 'id' | 'title' | 'unit' | 'format'> & { value: number },
): Rule<number> {
  return {
    id: rule.id,
    title: rule.title,
    kind: 'regulatory',
    unit: rule.unit,
    versions: [
      { effectiveFrom: null, value: rule.value, source: RESERVE_PAY_2025, certainty: 'uncertain' },
    ],
    configurable: null,
    appliedIn: [],
    pinnedBy: { file: PINS, title: 'records the Reserve Pay caps as uncertain and not applied' },
    format: rule.format,
    notes: NOT_APPLIED_RESERVE,
  };
}

const reserveCap = reservePayCap({
  id: 'reserve_pay.block_cap',
  title: 'UPI Reserve Pay: largest block per merchant and customer',
  unit: 'paise',
  value: 1_000_000,
  format: rupees,
});

const reserveValidity = reservePayCap({
  id: 'reserve_pay.block_validity_days',
  title: 'UPI Reserve Pay: longest life of a block',
  unit: 'days',
  value: 90,
  format: (d) => `${d} days`,
});

const reserveRetries = reservePayCap({
  id: 'reserve_pay.retries_per_24h',
  title: 'UPI Reserve Pay: debit retries within 24 hours',
  unit: 'retries',
  value: 3,
  format: (n) => `${n} retries`,
});

const lrsLimit: Rule<number> = {
  id: 'forex.lrs_limit',
  title: 'Liberalised Remittance Scheme: per resident individual per financial year (1 Apr–31 Mar)',
  kind: 'regulatory',
  unit: 'US cents',
  versions: [
    {
      effectiveFrom: null,
      value: 25_000_000,
      source:
        'RBI Liberalised Remittance Scheme (DOMAIN.md B.14); DOMAIN.md gives no start date for this amount',
      certainty: 'certain',
    },
  ],
  configurable: null,
  appliedIn: [
    'src/forex/forex-rules.ts',
    'src/forex/forex-checklist.ts',
    'src/forex/forex.service.ts',
  ],
  pinnedBy: { file: PINS, title: 'allows LRS up to exactly USD 250,000 per financial year' },
  format: usd,
};

/** A cash-per-trip limit in US cents, as dealers state RBI's rule (both pinned by one test). */
function cashPerTripLimit(id: string, title: string, value: number): Rule<number> {
  return {
    id,
    title,
    kind: 'regulatory',
    unit: 'US cents',
    versions: [
      {
        effectiveFrom: null,
        value,
        source: 'RBI cash limit per visit, as dealers state it (DOMAIN.md B.21)',
        certainty: 'certain',
      },
    ],
    configurable: null,
    appliedIn: ['src/forex/forex-rules.ts'],
    pinnedBy: {
      file: PINS,
      title: 'limits cash to USD 3,000 per trip, USD 5,000 for Iraq and Libya',
    },
    format: usd,
  };
}

const cashPerTrip = cashPerTripLimit(
  'forex.cash_per_trip',
  'Foreign-currency notes and coins per trip (most countries)',
  300_000,
);

const cashIraqLibya = cashPerTripLimit(
  'forex.cash_per_trip_iraq_libya',
  'Foreign-currency notes and coins per trip to Iraq or Libya',
  500_000,
);

const daysBeforeDeparture: Rule<number> = {
  id: 'forex.max_days_before_departure',
  title: 'Travel forex may be drawn at most this many days before departure',
  kind: 'regulatory',
  unit: 'days',
  versions: [
    {
      effectiveFrom: null,
      value: 60,
      source: 'RBI timing rule, as dealers state it (DOMAIN.md B.23)',
      certainty: 'certain',
    },
  ],
  configurable: null,
  appliedIn: ['src/forex/forex.service.ts', 'src/forex/forex-checklist.ts'],
  pinnedBy: { file: PINS, title: 'releases travel forex up to exactly 60 days before departure' },
  format: (d) => `${d} days`,
};

const tcs: Rule<TcsYear> = {
  id: 'forex.tcs',
  title: 'TCS on LRS remittances, s.206C(1G) Income-tax Act 1961, per financial year',
  kind: 'regulatory',
  unit: 'paise and basis points',
  versions: [
    {
      effectiveFrom: '2025-04-01',
      value: {
        thresholdPaise: 100_000_000,
        educationLoan: { withinThresholdBps: 0, aboveThresholdBps: 0 },
        educationMedical: { withinThresholdBps: 0, aboveThresholdBps: 500 },
        other: { withinThresholdBps: 0, aboveThresholdBps: 2000 },
      },
      source: 'Income-tax Act 1961 s.206C(1G) after Budget 2025, FY 2025-26 (DOMAIN.md B.15)',
      certainty: 'certain',
    },
    {
      effectiveFrom: '2026-04-01',
      value: {
        thresholdPaise: 100_000_000,
        educationLoan: { withinThresholdBps: 0, aboveThresholdBps: 0 },
        educationMedical: { withinThresholdBps: 0, aboveThresholdBps: 200 },
        other: { withinThresholdBps: 0, aboveThresholdBps: 2000 },
      },
      source:
        'Budget 2026 proposal, from 1 Apr 2026 (DOMAIN.md B.16); uncertain whether enacted unchanged',
      certainty: 'uncertain',
    },
  ],
  configurable: {
    env: 'FOREX_TCS_TABLE',
    note: 'a configured table (keyed by financial year) replaces the registry’s whole table; a year it lacks has no TCS rates and its files are refused',
  },
  appliedIn: ['src/config/app.config.ts (DEFAULT_FOREX_TCS_TABLE)', 'src/forex/forex.service.ts'],
  pinnedBy: {
    file: PINS,
    title: 'charges 5% then 2% TCS on education above ₹10 lakh, across 1 Apr 2026',
  },
  format: tcsYear,
  notes: 'Overseas tour packages (B.15, B.16) are not sold here; no rate is kept for them.',
};

export const RULES = new RuleRegistry([
  approvalThreshold,
  dailyCap,
  tokenLifetime,
  afaCeiling,
  noticeLead,
  blockedWindows,
  statusCheckMax,
  statusCheckSpacing,
  reserveCap,
  reserveValidity,
  reserveRetries,
  lrsLimit,
  cashPerTrip,
  cashIraqLibya,
  daysBeforeDeparture,
  tcs,
]);

/**
 * The TCS table of the registry keyed by financial year ("2025-26"): each version applies from
 * 1 April of its year (checked: a version starting on another day would not fit a yearly table).
 */
export function registryTcsTable(): TcsTable {
  const table: TcsTable = {};
  for (const v of RULES.get<TcsYear>('forex.tcs').versions) {
    const from = v.effectiveFrom as string;
    if (!from.endsWith('-04-01')) {
      throw new Error(`forex.tcs: version from ${from} does not start a financial year`);
    }
    const y = Number(from.slice(0, 4));
    table[`${y}-${String((y + 1) % 100).padStart(2, '0')}`] = v.value;
  }
  return table;
}
