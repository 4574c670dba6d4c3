/** Display helpers for forex amounts (exact: integers formatted, never divided as floats). */

/** USD 3,000.00 */
export function formatUsdCents(cents: number): string {
  const abs = BigInt(Math.abs(cents));
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `USD ${cents < 0 ? '-' : ''}${whole}.${(abs % 100n).toString().padStart(2, '0')}`;
}
