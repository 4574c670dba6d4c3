import { sumPaise } from '../common/money';
import { currencyInfo, LIMIT_CURRENCY } from './currencies';
import type { QuoteLine } from './entities/forex-quote.entity';
import type { ForexRate } from './entities/forex-rate.entity';
import { forexErrors } from './forex.errors';
import { formatForeignAmount, parseForeignAmount, rupeesPaise, usdCentsOf } from './forex-amounts';
import type { KindRule, Product } from './forex-rules';

export interface LineRequest {
  currency: string;
  amount: string;
  product: string;
}

export interface PricedLines {
  lines: QuoteLine[];
  rupeesPaise: number;
  usdEquivalentCents: number;
  notesUsdCents: number;
  usdReferenceRate: number;
}

const AMOUNT_MESSAGES = {
  not_decimal:
    'must be a plain positive decimal string such as "1500.50" (no signs, exponents or separators)',
  too_many_decimals: 'has more decimals than the currency has minor units',
  not_positive: 'must be greater than zero',
  too_large: 'is above the largest amount one line may carry (100,000,000 units)',
} as const;

/** The rate a line uses: notes, or card/remittance (TT) rates; sell to the person, or buy back. */
export function rateFor(rate: ForexRate, product: Product, side: 'buy' | 'sell'): number {
  if (product === 'notes') {
    return side === 'sell' ? rate.notesSell : rate.notesBuy;
  }
  return side === 'sell' ? rate.cardSell : rate.cardBuy;
}

/**
 * Prices the requested lines at the partner's current rates (forex-amounts.ts for the rounding
 * rule). USD equivalents use the partner's USD card/remittance rate on the same side, rounded up;
 * a USD line's equivalent is its own amount.
 */
export function priceLines(
  rule: KindRule,
  requested: LineRequest[],
  rates: Map<string, ForexRate>,
): PricedLines {
  const usd = rates.get(LIMIT_CURRENCY);
  if (!usd) {
    throw forexErrors.rateUnavailable(LIMIT_CURRENCY, '$.lines');
  }
  const usdReferenceRate = rule.rateSide === 'sell' ? usd.cardSell : usd.cardBuy;
  const lines = requested.map((req, i): QuoteLine => {
    const at = `$.lines[${i}]`;
    const currency = currencyInfo(req.currency);
    if (!currency) {
      throw forexErrors.invalid(
        `${at}.currency`,
        'unsupported_currency',
        `Currency ${req.currency} is not offered`,
      );
    }
    if (!(rule.products as readonly string[]).includes(req.product)) {
      throw forexErrors.invalid(
        `${at}.product`,
        'product_not_allowed',
        `A ${rule.label} file takes ${rule.products.join(' or ')}, not ${req.product}`,
      );
    }
    const product = req.product as Product;
    const parsed = parseForeignAmount(req.amount, currency);
    if (!parsed.ok) {
      throw forexErrors.invalid(
        `${at}.amount`,
        'invalid_amount',
        `amount ${AMOUNT_MESSAGES[parsed.problem]} (${currency.code} has ${currency.minorUnits} decimals)`,
      );
    }
    const rate = rates.get(currency.code);
    if (!rate) {
      throw forexErrors.rateUnavailable(currency.code, `${at}.currency`);
    }
    const lineRate = rateFor(rate, product, rule.rateSide);
    const paise = rupeesPaise(parsed.minor, currency, lineRate);
    return {
      currency: currency.code,
      product,
      foreign_amount: formatForeignAmount(parsed.minor, currency),
      rate: lineRate,
      rate_side: rule.rateSide,
      rupees_paise: paise,
      usd_cents:
        currency.code === LIMIT_CURRENCY
          ? Number(parsed.minor)
          : usdCentsOf(paise, usdReferenceRate),
    };
  });
  return {
    lines,
    rupeesPaise: sumPaise(lines.map((l) => l.rupees_paise)),
    usdEquivalentCents: sumPaise(lines.map((l) => l.usd_cents)),
    notesUsdCents: sumPaise(lines.filter((l) => l.product === 'notes').map((l) => l.usd_cents)),
    usdReferenceRate,
  };
}
