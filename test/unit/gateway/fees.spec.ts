import { feeFor } from '../../../gateway-sim';

/**
 * The simulator's fee maths (docs/gateway-simulator.md "Fees and tax"): fee = 2% of the amount,
 * tax = 18% of the fee, each rounded half up to the paisa; integers only.
 */
describe('gateway simulator fee and tax', () => {
  it.each([
    // amount, fee, tax — at the rounding boundaries
    [100, 2, 0], // tax 0.36 → 0
    [24, 0, 0], // fee 0.48 → 0
    [25, 1, 0], // fee 0.5 → 1 (half up); tax 0.18 → 0
    [74, 1, 0], // fee 1.48 → 1
    [75, 2, 0], // fee 1.5 → 2; tax 0.36 → 0
    [125, 3, 1], // fee 2.5 → 3; tax 0.54 → 1
    [1_000, 20, 4], // tax 3.6 → 4
    [1_050, 21, 4], // tax 3.78 → 4
    [13_875, 278, 50], // fee 277.5 → 278; tax 50.04 → 50
    [69_444, 1_389, 250], // fee 1388.88 → 1389; tax 250.02 → 250
    [69_445, 1_389, 250], // fee 1388.9 → 1389
    [13_889, 278, 50], // fee 277.78 → 278
    [1_389, 28, 5], // fee 27.78 → 28; tax 5.04 → 5
    [1_375, 28, 5], // fee 27.5 → 28
    [20_000_000, 400_000, 72_000],
    [10_000_000_000_000, 200_000_000_000, 36_000_000_000],
  ])('amount %i paise → fee %i, tax %i', (amount, fee, tax) => {
    expect(feeFor(amount)).toEqual({ fee, tax });
  });

  it('tax rounds half up at exactly .5 paise', () => {
    // fee 25 → tax 4.5 → 5; fee 75 → 13.5 → 14
    expect(feeFor(1_250)).toEqual({ fee: 25, tax: 5 });
    expect(feeFor(3_750)).toEqual({ fee: 75, tax: 14 });
  });
});
