import type { IstWindow } from '../../../src/config/app.config';
import { loadConfig } from '../../../src/config/app.config';
import { daysBetween, financialYearOf } from '../../../src/forex/financial-year';
import {
  cashLimitFor,
  computeTcs,
  LRS_LIMIT_USD_CENTS,
  MAX_DAYS_BEFORE_DEPARTURE,
  TcsYear,
} from '../../../src/forex/forex-rules';
import { evaluateBuyerRules } from '../../../src/payments/buyer-rules';
import { nextAskAt, statusCheckLimitsAt } from '../../../src/payments/status-check-pacing';
import {
  AFA_THRESHOLD_PAISE,
  earliestDebitAfterNotice,
  inBlockedWindow,
  needsAdditionalAuthorisation,
  PRE_DEBIT_NOTICE_MS,
} from '../../../src/recurring/autopay-schedule';
import { RULES } from '../../../src/rules/rule-catalog';

/**
 * The values of the rules registry (docs/rules.md), each pinned at its boundary and, where it
 * changes on a date, on both sides of that date. Each rule in src/rules/rule-catalog.ts names one
 * of these tests (test/unit/rules/rules-doc.spec.ts checks that it exists).
 */

/** An instant on the IST wall clock. */
const ist = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) =>
  new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms) - 330 * 60_000);
const defaults = loadConfig({});

describe('rule values', () => {
  it('asks a person above ₹2,000, not at exactly ₹2,000', () => {
    const threshold = RULES.latest<number>('payments.approval_threshold');
    expect(threshold).toBe(200_000);
    expect(defaults.approvalThresholdPaise).toBe(threshold);
    // The configured value wins (the rule is configurable).
    expect(loadConfig({ APPROVAL_THRESHOLD_PAISE: '500000' }).approvalThresholdPaise).toBe(500_000);
    const asks = (amountPaise: number) => amountPaise > defaults.approvalThresholdPaise;
    expect(asks(200_000)).toBe(false);
    expect(asks(200_001)).toBe(true);
  });

  it('refuses a payment that takes the day above the daily cap', () => {
    const cap = RULES.latest<number>('payments.daily_cap_default');
    expect(cap).toBe(5_000_000);
    expect(defaults.dailyCapPaise).toBe(cap);
    expect(loadConfig({ DAILY_CAP_PAISE: '100' }).dailyCapPaise).toBe(100);
    const rules = (spentTodayPaise: number, amountPaise: number) =>
      evaluateBuyerRules({
        mandate: null,
        amountPaise,
        sellerAgentId: 'agt_s',
        now: new Date(),
        spentTodayPaise,
        dailyCapPaise: defaults.dailyCapPaise,
      });
    expect(rules(4_000_000, 1_000_000)).toBeNull();
    expect(rules(4_000_000, 1_000_001)?.code).toBe('daily_cap_exceeded');
  });

  it('lets a delegated token live exactly 7 days, not a moment more', () => {
    expect(RULES.latest<number>('delegated_token.max_lifetime')).toBe(7 * 24 * 3_600_000);
  });

  it('needs AFA above ₹15,000, not at exactly ₹15,000', () => {
    expect(AFA_THRESHOLD_PAISE).toBe(1_500_000);
    expect(RULES.valueAt('autopay.afa_free_ceiling', ist(2026, 4, 21))).toBe(AFA_THRESHOLD_PAISE);
    expect(needsAdditionalAuthorisation(1_500_000)).toBe(false);
    expect(needsAdditionalAuthorisation(1_500_001)).toBe(true);
    // In force from NPCI OC-151A (14 Dec 2023); the registry knows no earlier value.
    expect(RULES.versionAt('autopay.afa_free_ceiling', ist(2023, 12, 13, 23, 59))).toBeNull();
    expect(RULES.valueAt('autopay.afa_free_ceiling', ist(2023, 12, 14))).toBe(1_500_000);
  });

  it('debits no earlier than 24 h after the pre-debit notice', () => {
    expect(PRE_DEBIT_NOTICE_MS).toBe(24 * 3_600_000);
    expect(defaults.autopay.noticeLeadMs).toBe(PRE_DEBIT_NOTICE_MS);
    const notice = ist(2026, 12, 1, 8);
    expect(earliestDebitAfterNotice(notice).getTime() - notice.getTime()).toBe(24 * 3_600_000);
  });

  it('blocks 10:00–13:00 and 17:00–21:30 IST from 1 Aug 2025', () => {
    // Before 1 Aug 2025 (IST) no window applied; from 00:00 IST that day, the two peak windows.
    expect(
      RULES.versionAt('autopay.blocked_windows_ist', ist(2025, 7, 31, 23, 59, 59, 999)),
    ).toBeNull();
    const windows = RULES.valueAt<IstWindow[]>('autopay.blocked_windows_ist', ist(2025, 8, 1));
    expect(windows).toEqual([
      { startMinute: 600, endMinute: 780 },
      { startMinute: 1020, endMinute: 1290 },
    ]);
    expect(defaults.autopay.blockedWindowsIst).toEqual(windows);
    expect(inBlockedWindow(ist(2026, 1, 5, 9, 59), windows)).toBe(false);
    expect(inBlockedWindow(ist(2026, 1, 5, 10, 0), windows)).toBe(true);
    expect(inBlockedWindow(ist(2026, 1, 5, 13, 0), windows)).toBe(false);
    expect(inBlockedWindow(ist(2026, 1, 5, 21, 29), windows)).toBe(true);
    expect(inBlockedWindow(ist(2026, 1, 5, 21, 30), windows)).toBe(false);
    // Configurable: the configured windows win.
    expect(
      loadConfig({ AUTOPAY_BLOCKED_WINDOWS_IST: '11:00-12:00' }).autopay.blockedWindowsIst,
    ).toEqual([{ startMinute: 660, endMinute: 720 }]);
  });

  it('spaces AutoPay status checks by exactly 90 s or more', () => {
    // From 1 Aug 2025 (IST): 3 checks, 90 s apart; before it the service did not pace them.
    expect(statusCheckLimitsAt(ist(2025, 7, 31, 23, 59, 59, 999))).toBeNull();
    const limits = statusCheckLimitsAt(ist(2025, 8, 1));
    expect(limits).toEqual({ maxChecks: 3, minSpacingMs: 90_000 });
    const asked = ist(2026, 12, 2, 8);
    expect(nextAskAt(asked, limits!).getTime() - asked.getTime()).toBe(90_000);
  });

  it('records the Reserve Pay caps as uncertain and not applied', () => {
    for (const [id, value] of [
      ['reserve_pay.block_cap', 1_000_000],
      ['reserve_pay.block_validity_days', 90],
      ['reserve_pay.retries_per_24h', 3],
    ] as const) {
      const rule = RULES.get<number>(id);
      expect(rule.versions).toHaveLength(1);
      expect(rule.versions[0]).toMatchObject({ value, certainty: 'uncertain' });
      expect(rule.appliedIn).toEqual([]);
    }
  });

  it('allows LRS up to exactly USD 250,000 per financial year', () => {
    expect(LRS_LIMIT_USD_CENTS).toBe(25_000_000);
    expect(RULES.latest('forex.lrs_limit')).toBe(LRS_LIMIT_USD_CENTS);
    // forex-checklist: a year's total above the limit fails; exactly the limit passes.
    const over = (totalUsdCents: number) => totalUsdCents > LRS_LIMIT_USD_CENTS;
    expect(over(25_000_000)).toBe(false);
    expect(over(25_000_001)).toBe(true);
  });

  it('limits cash to USD 3,000 per trip, USD 5,000 for Iraq and Libya', () => {
    expect(cashLimitFor('TH', 'S0306').usdCents).toBe(300_000);
    expect(cashLimitFor('IQ', 'S0306').usdCents).toBe(500_000);
    expect(cashLimitFor('LY', 'S0301').usdCents).toBe(500_000);
    expect(cashLimitFor('RU', 'S0306').usdCents).toBeNull();
  });

  it('releases travel forex up to exactly 60 days before departure', () => {
    expect(MAX_DAYS_BEFORE_DEPARTURE).toBe(60);
    expect(daysBetween('2026-01-01', '2026-03-02')).toBe(60);
    expect(daysBetween('2026-01-01', '2026-03-02') > MAX_DAYS_BEFORE_DEPARTURE).toBe(false);
    expect(daysBetween('2026-01-01', '2026-03-03') > MAX_DAYS_BEFORE_DEPARTURE).toBe(true);
  });

  it('charges 5% then 2% TCS on education above ₹10 lakh, across 1 Apr 2026', () => {
    const before = ist(2026, 3, 31, 23, 59, 59, 999);
    const after = ist(2026, 4, 1);
    const fy25 = RULES.valueAt<TcsYear>('forex.tcs', before);
    const fy26 = RULES.valueAt<TcsYear>('forex.tcs', after);
    expect(RULES.versionAt('forex.tcs', before)?.certainty).toBe('certain');
    expect(RULES.versionAt('forex.tcs', after)?.certainty).toBe('uncertain');
    // The configured default table is the registry's, keyed by the event's financial year.
    expect(defaults.forexTcsTable[financialYearOf(before)]).toEqual(fy25);
    expect(defaults.forexTcsTable[financialYearOf(after)]).toEqual(fy26);
    // Exactly at the ₹10 lakh threshold: nothing; ₹100 above it: 5% before, 2% after.
    expect(computeTcs(fy25, 'education_medical', 0, 100_000_000).tcsPaise).toBe(0);
    expect(computeTcs(fy25, 'education_medical', 0, 100_010_000).tcsPaise).toBe(500);
    expect(computeTcs(fy26, 'education_medical', 0, 100_010_000).tcsPaise).toBe(200);
    expect(computeTcs(fy25, 'other', 100_000_000, 10_000).tcsPaise).toBe(2000);
    expect(computeTcs(fy26, 'other', 100_000_000, 10_000).tcsPaise).toBe(2000);
    expect(computeTcs(fy26, 'education_loan', 100_000_000, 10_000).tcsPaise).toBe(0);
    // Before FY 2025-26 the registry holds no TCS table.
    expect(RULES.versionAt('forex.tcs', ist(2025, 3, 31, 23, 59))).toBeNull();
  });
});
