/**
 * The Board's clock (DPDP Rules 2025 r.7(2)(b)): the detailed report is due within 72 hours of
 * becoming aware of the breach (BREACH_BOARD_REPORT_HOURS), or a longer period the Board allows on
 * a written request (not modelled: record the Board's reference when reporting). Pure: no I/O.
 */
export interface BoardClock {
  dueAt: Date;
  /** Milliseconds until dueAt (negative once overdue). */
  msLeft: number;
  state: 'running' | 'overdue' | 'reported' | 'reported_late';
  /** In words: "61 h 5 min left", "overdue by 2 h 10 min", "reported 3 h 2 min before the deadline". */
  words: string;
}

export function boardClock(
  b: { awareAt: Date; boardReportedAt: Date | null },
  hours: number,
  now: Date,
): BoardClock {
  const dueAt = new Date(new Date(b.awareAt).getTime() + hours * 3600_000);
  const reportedAt = b.boardReportedAt ? new Date(b.boardReportedAt) : null;
  const msLeft = dueAt.getTime() - (reportedAt ?? now).getTime();
  if (reportedAt) {
    return msLeft >= 0
      ? { dueAt, msLeft, state: 'reported', words: `reported ${span(msLeft)} before the deadline` }
      : { dueAt, msLeft, state: 'reported_late', words: `reported ${span(-msLeft)} late` };
  }
  return msLeft > 0
    ? { dueAt, msLeft, state: 'running', words: `${span(msLeft)} left` }
    : { dueAt, msLeft, state: 'overdue', words: `overdue by ${span(-msLeft)}` };
}

/** 3 h 5 min; 45 min; 2 days 3 h. */
export function span(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (h === 0) {
    return `${m} min`;
  }
  if (h < 96) {
    return `${h} h ${m} min`;
  }
  return `${Math.floor(h / 24)} days ${h % 24} h`;
}
