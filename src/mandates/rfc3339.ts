const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Strict RFC 3339 date-time (offset required) → Date, or null. JavaScript's Date alone rolls
 * 2026-02-30 over to 2 March, so the calendar fields are checked against the parsed value.
 */
export function parseRfc3339(value: string): Date | null {
  const m = RFC3339.exec(value);
  if (!m) {
    return null;
  }
  const [, y, mo, d, h, mi, s] = m.map(Number);
  const calendar = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (
    calendar.getUTCFullYear() !== y ||
    calendar.getUTCMonth() !== mo - 1 ||
    calendar.getUTCDate() !== d ||
    h > 23 ||
    mi > 59 ||
    s > 59
  ) {
    return null;
  }
  const parsed = new Date(value.toUpperCase());
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}
