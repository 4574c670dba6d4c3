import { translator } from '../common/i18n/catalogue';

export { PERSON_TIME_ZONE } from '../common/i18n/catalogue';

/** "3 Mar 2026, 2:05 pm IST": the English form of every person-facing time (src/common/i18n). */
export function formatIst(d: Date | string): string {
  return translator('en').ist(d);
}
