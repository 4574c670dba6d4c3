/**
 * India's financial year runs 1 April to 31 March, counted in Indian Standard Time (UTC+05:30, no
 * daylight saving). The LRS limit and the TCS threshold are per financial year (DOMAIN.md B.14,
 * B.15): 31 March 23:59:59.999 IST belongs to the year that ends then, 1 April 00:00 IST to the
 * next. Labels read "2025-26".
 */
const IST_OFFSET_MS = 330 * 60_000;

/** The calendar date in IST, YYYY-MM-DD. */
export function istDate(at: Date): string {
  return new Date(at.getTime() + IST_OFFSET_MS).toISOString().slice(0, 10);
}

export function financialYearOf(at: Date): string {
  const ist = new Date(at.getTime() + IST_OFFSET_MS);
  const y = ist.getUTCMonth() >= 3 ? ist.getUTCFullYear() : ist.getUTCFullYear() - 1;
  return `${y}-${String((y + 1) % 100).padStart(2, '0')}`;
}

/** The first instant of a financial year: 1 April 00:00 IST of its first year. */
export function financialYearStart(label: string): Date {
  const y = Number(label.slice(0, 4));
  return new Date(Date.UTC(y, 3, 1) - IST_OFFSET_MS);
}

/** Whole days from date a to date b (YYYY-MM-DD each), b − a. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

/** A real calendar date written YYYY-MM-DD (rejects 2026-02-30). */
export function isCalendarDate(text: string): boolean {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) {
    return false;
  }
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}
