import fc from 'fast-check';

import { formatRupees, paiseFromSql, sumPaise } from '../../../src/common/money';

describe('money', () => {
  it.each([
    [0, '₹0.00'],
    [1, '₹0.01'],
    [1051, '₹10.51'],
    [200_000, '₹2,000.00'],
    [200_001, '₹2,000.01'],
    [350_000, '₹3,500.00'],
    [12_345_678, '₹1,23,456.78'],
    [-1250, '-₹12.50'],
    [Number.MAX_SAFE_INTEGER, '₹9,00,71,99,25,47,409.91'],
  ])('formats %i paise as %s', (paise, text) => {
    expect(formatRupees(paise)).toBe(text);
  });

  it('formats every safe number of paise exactly (rupees and paise read back)', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (paise) => {
        const digits = formatRupees(paise).replace(/[₹,]/g, '');
        expect(BigInt(digits.replace('.', ''))).toBe(BigInt(paise));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses amounts that are not whole, safe numbers of paise', () => {
    expect(() => formatRupees(12.5)).toThrow(/whole number of paise/);
    expect(() => paiseFromSql('9007199254740992')).toThrow(/safe integer range/);
    expect(() => paiseFromSql('12.5')).toThrow();
    expect(() => paiseFromSql('')).toThrow();
    expect(paiseFromSql('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => sumPaise([Number.MAX_SAFE_INTEGER, 1])).toThrow(/total/);
    expect(sumPaise([100, 250])).toBe(350);
  });
});
