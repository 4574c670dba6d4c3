/** Every time a person reads in the app is Indian Standard Time, whatever the server's zone. */
export const PERSON_TIME_ZONE = 'Asia/Kolkata';

const IST = new Intl.DateTimeFormat('en-IN', {
  timeZone: PERSON_TIME_ZONE,
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
});

/** "3 Mar 2026, 14:05 IST". */
export function formatIst(d: Date | string): string {
  return `${IST.format(new Date(d))} IST`;
}

/** "in 23 h", "in 40 min", "in 2 days"; "3 h ago" for the past. Rounded down, never "in 0 min". */
export function relativeTo(d: Date, now: Date): string {
  const ms = d.getTime() - now.getTime();
  const abs = Math.abs(ms);
  const min = Math.floor(abs / 60_000);
  let span: string;
  if (min < 1) {
    span = 'less than a minute';
  } else if (min < 60) {
    span = `${min} min`;
  } else if (min < 48 * 60) {
    span = `${Math.floor(min / 60)} h`;
  } else {
    span = `${Math.floor(min / 1440)} days`;
  }
  return ms >= 0 ? `in ${span}` : `${span} ago`;
}
