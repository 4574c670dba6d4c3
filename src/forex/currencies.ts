/**
 * Currencies a forex file can be quoted in (DOMAIN.md B.24). `minorUnits` is how many decimals a
 * foreign amount may carry (ISO 4217 exponent); `feedQuotedPer` is how the Indian market quotes
 * the currency: rupees per one unit, except JPY, quoted per 100 yen (FEDAI/RBI). Rates are always
 * stored and served per ONE unit, in integer ten-thousandths of a rupee; a per-100 quote is
 * converted when it comes in (forex-amounts.ts `rateFromFeed`).
 */
export interface CurrencyInfo {
  code: string;
  name: string;
  minorUnits: 0 | 2;
  feedQuotedPer: 1 | 100;
}

export const FOREX_CURRENCIES: readonly CurrencyInfo[] = [
  { code: 'USD', name: 'US dollar', minorUnits: 2, feedQuotedPer: 1 },
  { code: 'EUR', name: 'Euro', minorUnits: 2, feedQuotedPer: 1 },
  { code: 'GBP', name: 'Pound sterling', minorUnits: 2, feedQuotedPer: 1 },
  { code: 'AED', name: 'UAE dirham', minorUnits: 2, feedQuotedPer: 1 },
  { code: 'SGD', name: 'Singapore dollar', minorUnits: 2, feedQuotedPer: 1 },
  { code: 'JPY', name: 'Japanese yen', minorUnits: 0, feedQuotedPer: 100 },
  { code: 'THB', name: 'Thai baht', minorUnits: 2, feedQuotedPer: 1 },
];

export const CURRENCY_CODES = FOREX_CURRENCIES.map((c) => c.code);

const BY_CODE = new Map(FOREX_CURRENCIES.map((c) => [c.code, c]));

export function currencyInfo(code: string): CurrencyInfo | null {
  return BY_CODE.get(code) ?? null;
}

/** The currency the LRS and cash limits are stated in (DOMAIN.md B.14, B.21). */
export const LIMIT_CURRENCY = 'USD';
