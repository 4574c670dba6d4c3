import fc from 'fast-check';

import { currencyInfo } from '../../../src/forex/currencies';
import {
  basisPointsOf,
  divHalfUp,
  formatForeignAmount,
  formatRate,
  parseForeignAmount,
  rateFromFeed,
  rateToFeedText,
  rupeesPaise,
  usdCentsOf,
} from '../../../src/forex/forex-amounts';

const USD = currencyInfo('USD')!;
const JPY = currencyInfo('JPY')!;

function minor(text: string, c = USD): bigint {
  const r = parseForeignAmount(text, c);
  if (!r.ok) {
    throw new Error(`${text}: ${r.problem}`);
  }
  return r.minor;
}

describe('foreign amounts', () => {
  it('parses plain decimals into minor units', () => {
    expect(minor('1500')).toBe(150000n);
    expect(minor('1500.5')).toBe(150050n);
    expect(minor('0.01')).toBe(1n);
    expect(minor('12000', JPY)).toBe(12000n);
    expect(minor('12000.000', JPY)).toBe(12000n);
  });

  it.each([
    ['1e3', 'not_decimal'],
    ['-5', 'not_decimal'],
    ['+5', 'not_decimal'],
    ['1,000', 'not_decimal'],
    [' 5', 'not_decimal'],
    ['5.', 'not_decimal'],
    ['.5', 'not_decimal'],
    ['', 'not_decimal'],
    ['0x10', 'not_decimal'],
    ['10.001', 'too_many_decimals'],
    ['0', 'not_positive'],
    ['0.00', 'not_positive'],
    ['100000001', 'too_large'],
  ])('refuses %j as %s', (text, problem) => {
    expect(parseForeignAmount(text, USD)).toEqual({ ok: false, problem });
  });

  it('refuses decimals JPY does not have', () => {
    expect(parseForeignAmount('5.5', JPY)).toEqual({ ok: false, problem: 'too_many_decimals' });
  });

  it('formats the canonical text', () => {
    expect(formatForeignAmount(150050n, USD)).toBe('1500.50');
    expect(formatForeignAmount(5n, USD)).toBe('0.05');
    expect(formatForeignAmount(12000n, JPY)).toBe('12000');
  });
});

describe('rupee conversion (one rule: per line, to the paisa, half up)', () => {
  it('is exact: USD 1,000.00 at ₹83.9312 is ₹83,931.20', () => {
    expect(rupeesPaise(100000n, USD, 839312)).toBe(8_393_120);
  });

  it('rounds an exact half up and anything below it down', () => {
    // 0.01 USD × 83.9350 = 0.839350 ₹ = 83.935 paise → 84
    expect(rupeesPaise(1n, USD, 839350)).toBe(84);
    // 0.01 USD × 83.9349 = 83.9349 paise → 84; × 83.4999 → 83.4999 paise → 83
    expect(rupeesPaise(1n, USD, 839349)).toBe(84);
    expect(rupeesPaise(1n, USD, 834999)).toBe(83);
    expect(rupeesPaise(1n, USD, 835000)).toBe(84);
    expect(divHalfUp(5n, 10n)).toBe(1n);
    expect(divHalfUp(4n, 10n)).toBe(0n);
  });

  it('JPY: 12,000 yen at ₹0.5673 per yen is ₹6,807.60', () => {
    expect(rupeesPaise(12000n, JPY, 5673)).toBe(680_760);
  });

  it('gives the same rupees for every equivalent decimal string (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10_000_000_000n }),
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.nat({ max: 4 }),
        fc.nat({ max: 4 }),
        (cents, rate, leadingZeros, trailingZeros) => {
          const canonical = formatForeignAmount(cents, USD);
          const padded = `${'0'.repeat(leadingZeros)}${canonical}${'0'.repeat(trailingZeros)}`;
          const variants = [canonical, padded];
          if (cents % 100n === 0n) {
            variants.push(`${cents / 100n}`, `${cents / 100n}.0`);
          } else if (cents % 10n === 0n) {
            variants.push(canonical.slice(0, -1));
          }
          const expected = rupeesPaise(cents, USD, rate);
          // The independent rational: cents × rate / 100 / 100 paise, half up.
          const num = cents * BigInt(rate);
          const exact = num / 10_000n + ((num % 10_000n) * 2n >= 10_000n ? 1n : 0n);
          expect(BigInt(expected)).toBe(exact);
          for (const v of variants) {
            const parsed = parseForeignAmount(v, USD);
            expect(parsed).toEqual({ ok: true, minor: cents });
            expect(rupeesPaise((parsed as { minor: bigint }).minor, USD, rate)).toBe(expected);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('rates', () => {
  it('converts a per-100 feed (JPY) to per one unit on the way in', () => {
    expect(rateFromFeed('55.7300', 100)).toBe(5573);
    // 55.7312 per 100 = 5573.12 ten-thousandths per yen → 5573 (half up: .12 rounds down)
    expect(rateFromFeed('55.7312', 100)).toBe(5573);
    expect(rateFromFeed('55.7350', 100)).toBe(5574);
    expect(rateToFeedText(5573, 100)).toBe('55.7300');
  });

  it('keeps a per-unit feed as is', () => {
    expect(rateFromFeed('83.9312', 1)).toBe(839312);
    expect(formatRate(839312)).toBe('₹83.9312');
  });

  it.each(['-1', '0', '1e2', 'abc', '83.1234567', '', '0.00001'])('refuses %j', (text) => {
    expect(rateFromFeed(text, 1)).toBeNull();
  });

  it('USD equivalents round up, so a limit is never passed by rounding', () => {
    // ₹83.9312 per USD: ₹83.94 is USD 1.0001… → 101 cents
    expect(usdCentsOf(8394, 839312)).toBe(101);
    expect(usdCentsOf(8_393_120, 839312)).toBe(100_000);
  });

  it('basis points round half up', () => {
    expect(basisPointsOf(80, 2000)).toBe(16);
    expect(basisPointsOf(1, 5000)).toBe(1);
    expect(basisPointsOf(1, 4999)).toBe(0);
  });
});
