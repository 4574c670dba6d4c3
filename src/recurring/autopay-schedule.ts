import type { IstWindow } from '../config/app.config';
import { RULES } from '../rules/rule-catalog';

/**
 * The rules of a UPI AutoPay debit's timing and size, as pure functions (docs/recurring.md "Recurring
 * payments (UPI AutoPay)"; ../shared/DOMAIN.md part A):
 * - a debit is attempted at least 24 hours after its pre-debit notice (spec §8);
 * - never inside the NPCI blocked windows (AUTOPAY_BLOCKED_WINDOWS_IST; default 10:00–13:00 and
 *   17:00–21:30 IST);
 * - at most one successful debit per billing cycle of the mandate's frequency;
 * - above ₹15,000 (1_500_000 paise) only with the person's additional authorisation (AFA).
 * All times are instants (Date); windows and cycles are computed on the IST calendar (UTC+05:30,
 * no daylight saving).
 */

const IST_OFFSET_MS = 330 * 60_000;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Least time between the pre-debit notice and the debit (rules registry, docs/rules.md). */
export const PRE_DEBIT_NOTICE_MS = RULES.latest<number>('autopay.pre_debit_notice_lead');

/** Largest recurring debit without the person's additional authorisation (₹15,000; registry). */
export const AFA_THRESHOLD_PAISE = RULES.latest<number>('autopay.afa_free_ceiling');

export const AUTOPAY_FREQUENCIES = [
  'daily',
  'weekly',
  'fortnightly',
  'monthly',
  'bimonthly',
  'quarterly',
  'half_yearly',
  'yearly',
] as const;
export type AutopayFrequency = (typeof AUTOPAY_FREQUENCIES)[number];

/**
 * A recurring mandate's billing cycle: a fixed frequency, or `as_presented` (the seller debits when
 * a bill is due: no one-debit-per-cycle rule, every debit still announced 24 h ahead, outside the
 * windows, within the person's maximum, authorised above the thresholds).
 */
export const MANDATE_BILLING_CYCLES = [...AUTOPAY_FREQUENCIES, 'as_presented'] as const;
export type MandateBillingCycle = (typeof MANDATE_BILLING_CYCLES)[number];

/**
 * The cycle a charge debited at `debitAt` belongs to: for a fixed frequency its billing cycle;
 * for `as_presented` none (index null) and the mandate's validity as its bounds, so a charge
 * still expires when the mandate ends before it could be debited.
 */
export function chargeCycle(
  cycle: MandateBillingCycle,
  validFrom: Date,
  validUntil: Date,
  debitAt: Date,
): { index: number | null; start: Date; end: Date } {
  return cycle === 'as_presented'
    ? { index: null, start: validFrom, end: validUntil }
    : billingCycle(cycle, validFrom, debitAt);
}

/** A debit of this amount needs the person's additional authorisation (strictly above ₹15,000). */
export function needsAdditionalAuthorisation(amountPaise: number): boolean {
  return amountPaise > AFA_THRESHOLD_PAISE;
}

/** The earliest instant a debit announced at `noticeAt` may be attempted. */
export function earliestDebitAfterNotice(noticeAt: Date, leadMs = PRE_DEBIT_NOTICE_MS): Date {
  return new Date(noticeAt.getTime() + leadMs);
}

/** Minutes after 00:00 IST of an instant (0–1439, fractional minutes dropped). */
function istMinuteOfDay(at: Date): number {
  const ms = (at.getTime() + IST_OFFSET_MS) % DAY_MS;
  return Math.floor((ms < 0 ? ms + DAY_MS : ms) / MINUTE_MS);
}

/** The instant 00:00 IST of the IST day of `at`. */
function istMidnight(at: Date): number {
  const shifted = at.getTime() + IST_OFFSET_MS;
  return shifted - (((shifted % DAY_MS) + DAY_MS) % DAY_MS) - IST_OFFSET_MS;
}

/** Whether `at` falls in a blocked window ([start, end), IST wall clock). */
export function inBlockedWindow(at: Date, windows: IstWindow[]): boolean {
  const minute = istMinuteOfDay(at);
  return windows.some((w) => minute >= w.startMinute && minute < w.endMinute);
}

/**
 * The first instant at or after `at` outside every blocked window: `at` itself when allowed,
 * else the end of the window it is in (and of any window that starts exactly there).
 */
export function nextAllowedInstant(at: Date, windows: IstWindow[]): Date {
  let t = at.getTime();
  for (let guard = 0; guard <= windows.length; guard++) {
    const minute = istMinuteOfDay(new Date(t));
    const w = windows.find((x) => minute >= x.startMinute && minute < x.endMinute);
    if (!w) {
      return new Date(t);
    }
    t = istMidnight(new Date(t)) + w.endMinute * MINUTE_MS;
  }
  return new Date(t);
}

/** When a debit announced at `noticeAt` is first attempted: 24 h later, outside the windows. */
export function scheduledDebitAt(
  noticeAt: Date,
  windows: IstWindow[],
  leadMs = PRE_DEBIT_NOTICE_MS,
): Date {
  return nextAllowedInstant(earliestDebitAfterNotice(noticeAt, leadMs), windows);
}

export interface BillingCycle {
  /** 0 for the cycle that starts at the anchor. */
  index: number;
  start: Date;
  /** Exclusive. */
  end: Date;
}

const MONTHS: Partial<Record<AutopayFrequency, number>> = {
  monthly: 1,
  bimonthly: 2,
  quarterly: 3,
  half_yearly: 6,
  yearly: 12,
};
const DAYS: Partial<Record<AutopayFrequency, number>> = { daily: 1, weekly: 7, fortnightly: 14 };

/** 00:00 IST of the anchor's IST day moved by `months` calendar months (day clamped to month end). */
function addIstMonths(anchorMidnight: number, months: number): number {
  const d = new Date(anchorMidnight + IST_OFFSET_MS);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(d.getUTCDate(), lastDay)) - IST_OFFSET_MS;
}

/**
 * The billing cycle of `at` for a mandate anchored at `anchor` (its start): cycles begin at
 * 00:00 IST of the anchor's day and last one frequency (days, or calendar months from the same
 * day of the month, clamped to the month's end). Instants before the anchor are cycle -1 and
 * earlier (never a debit: the mandate is not valid yet).
 */
export function billingCycle(frequency: AutopayFrequency, anchor: Date, at: Date): BillingCycle {
  const base = istMidnight(anchor);
  const days = DAYS[frequency];
  if (days !== undefined) {
    const len = days * DAY_MS;
    const index = Math.floor((at.getTime() - base) / len);
    return {
      index,
      start: new Date(base + index * len),
      end: new Date(base + (index + 1) * len),
    };
  }
  const months = MONTHS[frequency] as number;
  const a = new Date(base + IST_OFFSET_MS);
  const b = new Date(at.getTime() + IST_OFFSET_MS);
  let index = Math.floor(
    ((b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth())) / months,
  );
  // The month difference can overshoot by one cycle when `at` is before the anchor's day.
  while (addIstMonths(base, index * months) > at.getTime()) {
    index--;
  }
  while (addIstMonths(base, (index + 1) * months) <= at.getTime()) {
    index++;
  }
  return {
    index,
    start: new Date(addIstMonths(base, index * months)),
    end: new Date(addIstMonths(base, (index + 1) * months)),
  };
}
