/** India Standard Time is UTC+05:30 all year (no daylight saving). */
export const IST_OFFSET_MS = 330 * 60_000;

export interface IstDay {
  year: number;
  month: number;
  day: number;
}

/** The IST calendar day of an instant. */
export function istDayOf(at: Date): IstDay {
  const d = new Date(at.getTime() + IST_OFFSET_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The `count` IST calendar days ending with the day of `at`, oldest first. */
export function istDaysEnding(at: Date, count: number): IstDay[] {
  const days: IstDay[] = [];
  for (let i = count - 1; i >= 0; i--) {
    days.push(istDayOf(new Date(at.getTime() - i * 86_400_000)));
  }
  return days;
}
