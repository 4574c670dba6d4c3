import { translator } from '../common/i18n/catalogue';

/** Every time a person reads in the app is Indian Standard Time, whatever the server's zone. */
export const PERSON_TIME_ZONE = 'Asia/Kolkata';

/** "3 Mar 2026, 2:05 pm IST": the English form of every person-facing time (src/common/i18n). */
export function formatIst(d: Date | string): string {
  return translator('en').ist(d);
}

/** "in 23 h", "in 40 min", "in 2 days"; "3 h ago" for the past (English; Translator.relative speaks each language). */
export function relativeTo(d: Date, now: Date): string {
  return translator('en').relative(d, now);
}
