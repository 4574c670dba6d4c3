import fc from 'fast-check';

import { loadConfig } from '../../../src/config/app.config';
import {
  AFA_THRESHOLD_PAISE,
  AUTOPAY_FREQUENCIES,
  billingCycle,
  earliestDebitAfterNotice,
  inBlockedWindow,
  needsAdditionalAuthorisation,
  nextAllowedInstant,
  scheduledDebitAt,
} from '../../../src/recurring/autopay-schedule';

/** An instant given as IST wall-clock time. */
const ist = (s: string) => new Date(`${s}+05:30`);
const WINDOWS = loadConfig({}).autopay.blockedWindowsIst;

describe('AutoPay schedule rules', () => {
  it('defaults to the NPCI windows 10:00–13:00 and 17:00–21:30 IST', () => {
    expect(WINDOWS).toEqual([
      { startMinute: 600, endMinute: 780 },
      { startMinute: 1020, endMinute: 1290 },
    ]);
  });

  it('reads AUTOPAY_BLOCKED_WINDOWS_IST and refuses malformed windows', () => {
    expect(
      loadConfig({ AUTOPAY_BLOCKED_WINDOWS_IST: '00:00-06:00, 23:00-24:00' }).autopay
        .blockedWindowsIst,
    ).toEqual([
      { startMinute: 0, endMinute: 360 },
      { startMinute: 1380, endMinute: 1440 },
    ]);
    for (const bad of ['10-13', '13:00-10:00', '10:00-10:00', '10:60-11:00', '10:00-24:30']) {
      expect(() => loadConfig({ AUTOPAY_BLOCKED_WINDOWS_IST: bad })).toThrow(
        /AUTOPAY_BLOCKED_WINDOWS_IST must be comma-separated HH:MM-HH:MM windows/,
      );
    }
  });

  it('blocks a window from its first minute up to, not including, its end', () => {
    expect(inBlockedWindow(ist('2026-03-02T09:59:59'), WINDOWS)).toBe(false);
    expect(inBlockedWindow(ist('2026-03-02T10:00:00'), WINDOWS)).toBe(true);
    expect(inBlockedWindow(ist('2026-03-02T12:59:59'), WINDOWS)).toBe(true);
    expect(inBlockedWindow(ist('2026-03-02T13:00:00'), WINDOWS)).toBe(false);
    expect(inBlockedWindow(ist('2026-03-02T16:59:59'), WINDOWS)).toBe(false);
    expect(inBlockedWindow(ist('2026-03-02T17:00:00'), WINDOWS)).toBe(true);
    expect(inBlockedWindow(ist('2026-03-02T21:29:59'), WINDOWS)).toBe(true);
    expect(inBlockedWindow(ist('2026-03-02T21:30:00'), WINDOWS)).toBe(false);
    expect(inBlockedWindow(ist('2026-03-02T00:00:00'), WINDOWS)).toBe(false);
  });

  it('moves an instant in a window to the window’s end, and leaves an allowed one alone', () => {
    expect(nextAllowedInstant(ist('2026-03-02T11:15:00'), WINDOWS)).toEqual(
      ist('2026-03-02T13:00:00'),
    );
    expect(nextAllowedInstant(ist('2026-03-02T17:00:00'), WINDOWS)).toEqual(
      ist('2026-03-02T21:30:00'),
    );
    expect(nextAllowedInstant(ist('2026-03-02T13:00:00'), WINDOWS)).toEqual(
      ist('2026-03-02T13:00:00'),
    );
    // Adjacent windows are crossed in one go; a window ending at midnight ends the next day.
    const chained = [
      { startMinute: 600, endMinute: 700 },
      { startMinute: 700, endMinute: 1440 },
    ];
    expect(nextAllowedInstant(ist('2026-03-02T10:30:00'), chained)).toEqual(
      ist('2026-03-03T00:00:00'),
    );
  });

  it('schedules a debit 24 h after its notice, pushed out of a blocked window', () => {
    expect(earliestDebitAfterNotice(ist('2026-03-02T08:00:00'))).toEqual(
      ist('2026-03-03T08:00:00'),
    );
    expect(scheduledDebitAt(ist('2026-03-02T08:00:00'), WINDOWS)).toEqual(
      ist('2026-03-03T08:00:00'),
    );
    expect(scheduledDebitAt(ist('2026-03-02T18:00:00'), WINDOWS)).toEqual(
      ist('2026-03-03T21:30:00'),
    );
  });

  it('never schedules a debit before 24 h after the notice nor inside a window (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }), (ms) => {
        const notice = new Date(ms);
        const at = scheduledDebitAt(notice, WINDOWS);
        expect(at.getTime()).toBeGreaterThanOrEqual(ms + 24 * 3_600_000);
        expect(inBlockedWindow(at, WINDOWS)).toBe(false);
        // And no later than the end of the longest window past the 24 h.
        expect(at.getTime() - (ms + 24 * 3_600_000)).toBeLessThanOrEqual(270 * 60_000);
      }),
    );
  });

  it('needs additional authorisation strictly above ₹15,000', () => {
    expect(AFA_THRESHOLD_PAISE).toBe(1_500_000);
    expect(needsAdditionalAuthorisation(1_500_000)).toBe(false);
    expect(needsAdditionalAuthorisation(1_500_001)).toBe(true);
  });

  it('cuts daily, weekly and fortnightly cycles at 00:00 IST of the anchor’s day', () => {
    const anchor = ist('2026-03-02T15:45:00');
    expect(billingCycle('daily', anchor, ist('2026-03-02T23:59:59'))).toEqual({
      index: 0,
      start: ist('2026-03-02T00:00:00'),
      end: ist('2026-03-03T00:00:00'),
    });
    expect(billingCycle('daily', anchor, ist('2026-03-03T00:00:00')).index).toBe(1);
    expect(billingCycle('weekly', anchor, ist('2026-03-08T23:59:59')).index).toBe(0);
    expect(billingCycle('weekly', anchor, ist('2026-03-09T00:00:00')).index).toBe(1);
    expect(billingCycle('fortnightly', anchor, ist('2026-03-16T00:00:00')).index).toBe(1);
  });

  it('cuts monthly cycles on the anchor’s day of the month, clamped to short months', () => {
    const anchor = ist('2026-01-31T09:00:00');
    expect(billingCycle('monthly', anchor, ist('2026-02-27T23:59:59'))).toEqual({
      index: 0,
      start: ist('2026-01-31T00:00:00'),
      end: ist('2026-02-28T00:00:00'),
    });
    expect(billingCycle('monthly', anchor, ist('2026-02-28T00:00:00')).index).toBe(1);
    expect(billingCycle('monthly', anchor, ist('2026-03-30T23:59:59')).index).toBe(1);
    expect(billingCycle('monthly', anchor, ist('2026-03-31T00:00:00')).index).toBe(2);
    expect(billingCycle('quarterly', anchor, ist('2026-04-30T00:00:00')).index).toBe(1);
    expect(billingCycle('yearly', anchor, ist('2027-01-30T23:59:59')).index).toBe(0);
    expect(billingCycle('yearly', anchor, ist('2027-01-31T00:00:00')).index).toBe(1);
  });

  it('puts every instant in exactly one cycle, cycles tiling time (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...AUTOPAY_FREQUENCIES),
        fc.integer({ min: 1_700_000_000_000, max: 1_750_000_000_000 }),
        fc.integer({ min: 0, max: 3 * 365 * 86_400_000 }),
        (freq, anchorMs, offset) => {
          const c = billingCycle(freq, new Date(anchorMs), new Date(anchorMs + offset));
          expect(c.start.getTime()).toBeLessThanOrEqual(anchorMs + offset);
          expect(c.end.getTime()).toBeGreaterThan(anchorMs + offset);
          expect(c.index).toBeGreaterThanOrEqual(0);
          const next = billingCycle(freq, new Date(anchorMs), c.end);
          expect(next.index).toBe(c.index + 1);
          expect(next.start).toEqual(c.end);
        },
      ),
    );
  });
});
