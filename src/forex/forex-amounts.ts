import type { CurrencyInfo } from './currencies';

/**
 * Exact forex arithmetic (docs/forex.md "Forex files", rounding rule). Nothing here touches a float:
 *
 * - a foreign amount is a decimal string, parsed into an integer count of the currency's minor
 *   units (cents, or whole yen);
 * - a rate is an integer number of ten-thousandths of a rupee per ONE unit (839312 = ₹83.9312);
 * - rupees = minor × rate / (100 × 10^minorUnits) paise, computed in BigInt and rounded ONCE to
 *   the nearest paisa, an exact half going up (ROUND_HALF_UP). Every line is rounded on its own;
 *   a quote's rupee amount is the sum of its rounded lines. TCS uses the same rule;
 * - USD equivalents used for the LRS and cash limits are rounded UP to the next cent, so a limit
 *   is never passed by rounding.
 */

/** Largest foreign amount one line may carry, in whole units (10 crore units). */
export const MAX_FOREIGN_UNITS = 100_000_000n;
/** Largest rate the service accepts: ₹10,000 per unit. */
export const MAX_RATE = 100_000_000;
const MAX_TEXT = 40;
const DECIMAL = /^[0-9]+(?:\.[0-9]+)?$/;

export type AmountProblem = 'not_decimal' | 'too_many_decimals' | 'not_positive' | 'too_large';

export type ParsedAmount = { ok: true; minor: bigint } | { ok: false; problem: AmountProblem };

/**
 * "1500", "1500.5", "1500.50", "01500.500" are the same USD amount (150050 cents). Refused: signs,
 * exponents, separators, spaces, a bare "." on either side, and any non-zero digit beyond the
 * currency's minor units ("10.001" USD, "5.5" JPY). Trailing zeros beyond them are harmless.
 */
export function parseForeignAmount(text: string, currency: CurrencyInfo): ParsedAmount {
  if (text.length === 0 || text.length > MAX_TEXT || !DECIMAL.test(text)) {
    return { ok: false, problem: 'not_decimal' };
  }
  const [whole, fraction = ''] = text.split('.');
  const kept = fraction.slice(0, currency.minorUnits);
  if (/[1-9]/.test(fraction.slice(currency.minorUnits))) {
    return { ok: false, problem: 'too_many_decimals' };
  }
  const units = BigInt(whole);
  if (units > MAX_FOREIGN_UNITS) {
    return { ok: false, problem: 'too_large' };
  }
  const minor =
    units * 10n ** BigInt(currency.minorUnits) +
    BigInt(kept.padEnd(currency.minorUnits, '0') || '0');
  if (minor <= 0n) {
    return { ok: false, problem: 'not_positive' };
  }
  return { ok: true, minor };
}

/** The canonical text of an amount: exactly minorUnits decimals ("1500.50", "12000"). */
export function formatForeignAmount(minor: bigint, currency: CurrencyInfo): string {
  if (currency.minorUnits === 0) {
    return minor.toString();
  }
  const scale = 10n ** BigInt(currency.minorUnits);
  const fraction = (minor % scale).toString().padStart(currency.minorUnits, '0');
  return `${minor / scale}.${fraction}`;
}

/** num / den rounded to the nearest integer, an exact half up (num ≥ 0, den > 0). */
export function divHalfUp(num: bigint, den: bigint): bigint {
  const q = num / den;
  return (num % den) * 2n >= den ? q + 1n : q;
}

/** num / den rounded up (num ≥ 0, den > 0). */
export function divCeil(num: bigint, den: bigint): bigint {
  const q = num / den;
  return num % den === 0n ? q : q + 1n;
}

/** A safe-integer number from a BigInt the caller has bounded; throws otherwise. */
export function toSafeNumber(v: bigint, what: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) {
    throw new Error(`${what} ${v} is outside the safe integer range`);
  }
  return n;
}

/** Rupees in paise for `minor` units at `rate` (ten-thousandths of a rupee per unit), half up. */
export function rupeesPaise(minor: bigint, currency: CurrencyInfo, rate: number): number {
  const den = 100n * 10n ** BigInt(currency.minorUnits);
  return toSafeNumber(divHalfUp(minor * BigInt(rate), den), 'rupee amount');
}

/** US cents worth `paise` at `usdRate` (ten-thousandths of a rupee per USD), rounded up. */
export function usdCentsOf(paise: number, usdRate: number): number {
  return toSafeNumber(divCeil(BigInt(paise) * 10_000n, BigInt(usdRate)), 'USD equivalent');
}

/** `bps` basis points (1/100 of a percent) of `paise`, half up. */
export function basisPointsOf(paise: number, bps: number): number {
  return toSafeNumber(divHalfUp(BigInt(paise) * BigInt(bps), 10_000n), 'percentage');
}

const RUPEE_DECIMAL = /^[0-9]{1,7}(?:\.[0-9]{1,6})?$/;

/**
 * A rate as the market quotes it (rupees as a decimal string, per `quotedPer` units: 1, or 100 for
 * JPY) → integer ten-thousandths of a rupee per ONE unit, rounded half up. "55.7312" per 100 JPY
 * → 5573 (₹0.5573 per yen; the exact value 5573.12 rounds down). null when the text is not a
 * positive decimal with at most 6 decimals, or the result is 0 or above MAX_RATE.
 */
export function rateFromFeed(text: string, quotedPer: 1 | 100): number | null {
  const trimmed = text.trim();
  if (!RUPEE_DECIMAL.test(trimmed)) {
    return null;
  }
  const [whole, fraction = ''] = trimmed.split('.');
  // value = whole.fraction rupees = N / 10^6 rupees, N an integer.
  const n = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  // ten-thousandths per unit = N / 10^6 × 10^4 / quotedPer = N / (100 × quotedPer).
  const rate = divHalfUp(n, 100n * BigInt(quotedPer));
  if (rate <= 0n || rate > BigInt(MAX_RATE)) {
    return null;
  }
  return Number(rate);
}

/** ten-thousandths per unit → the decimal a feed would show per `quotedPer` units ("55.7300"). */
export function rateToFeedText(rate: number, quotedPer: 1 | 100): string {
  const scaled = BigInt(rate) * BigInt(quotedPer);
  return `${scaled / 10_000n}.${(scaled % 10_000n).toString().padStart(4, '0')}`;
}

/** ₹83.9312 (rupees per one unit, all four decimals). */
export function formatRate(rate: number): string {
  return `₹${rateToFeedText(rate, 1)}`;
}
