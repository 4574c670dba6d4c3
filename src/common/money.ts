/**
 * Money, one way everywhere (docs/architecture.md, "Money"): amounts are integer paise held in a
 * JS number only while they are safe integers (2^53 − 1 paise is about ₹90 lakh crore, far above
 * any real amount), stored as Postgres bigint, and shown to people as Indian rupees.
 */

/** Whole rupees with the ₹ sign and Indian digit grouping (₹1,23,456). */
const WHOLE_RUPEES = new Intl.NumberFormat('en-IN', {
  style: 'currency',
  currency: 'INR',
  maximumFractionDigits: 0,
});

/**
 * ₹3,500.00, ₹1,23,456.78, -₹12.50: Indian digit grouping, always with paise. Exact for every
 * safe integer: rupees are formatted as a bigint and the paise appended, never divided as a float.
 */
export function formatRupees(paise: number): string {
  assertSafePaise(paise, 'amount');
  const abs = BigInt(Math.abs(paise));
  const fraction = String(abs % 100n).padStart(2, '0');
  return `${paise < 0 ? '-' : ''}${WHOLE_RUPEES.format(abs / 100n)}.${fraction}`;
}

/** Throws unless `n` is an integer number of paise a JS number holds exactly. */
export function assertSafePaise(n: number, what: string): void {
  if (!Number.isSafeInteger(n)) {
    throw new Error(
      `${what} ${String(n)} is not a whole number of paise within the safe integer range`,
    );
  }
}

/**
 * Paise from the database as a number. pg returns bigint and numeric (what SUM of a bigint is)
 * as strings: entity columns (the `paise` transformer) and raw queries returning money
 * (`SUM(amount_paise)::text`, `RETURNING amount_refunded_paise`, …) both go through this, so an
 * overflowing or fractional total throws instead of silently rounding.
 */
export function paiseFromSql(v: string | number | bigint): number {
  const n = typeof v === 'string' && v.trim() === '' ? NaN : Number(v);
  assertSafePaise(n, 'paise value');
  return n;
}

/** The sum of amounts in paise, refusing a total beyond the safe integer range. */
export function sumPaise(amounts: readonly number[]): number {
  const total = amounts.reduce((sum, a) => sum + BigInt(a), 0n);
  const n = Number(total);
  assertSafePaise(n, 'total');
  return n;
}
