import { ValueTransformer } from 'typeorm';

/**
 * Paise from the database as a number, refusing values a JS number cannot hold exactly (2^53-1
 * paise is ~90 trillion rupees, far above any real amount). pg returns bigint and numeric (what
 * SUM of a bigint is) as strings: raw queries returning money (`SUM(amount_paise)::text`,
 * `RETURNING amount_refunded_paise::text`, …) go through this, as entity columns do through
 * `paise`, so an overflowing or fractional total throws instead of silently rounding.
 */
export function paiseFromSql(v: string | number | bigint): number {
  const n = typeof v === 'string' && v.trim() === '' ? NaN : Number(v);
  if (!Number.isSafeInteger(n)) {
    throw new Error(`paise value ${String(v)} is not an integer within the safe integer range`);
  }
  return n;
}

/** Paise live in bigint columns; this maps them to number through paiseFromSql. */
export const paise: ValueTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | null): number | null =>
    v === null || v === undefined ? null : paiseFromSql(v),
};
