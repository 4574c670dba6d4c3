import { rupeesInput } from '../../../src/mandates/mandate-pages.service';
import { cycleWords, istInWords } from '../../../src/mandates/mandate-views';

describe('mandate page wording', () => {
  it('says a deadline in words, in IST whatever the server zone', () => {
    // 18:00 UTC is 23:30 IST the same day.
    expect(istInWords(new Date('2026-12-25T18:00:00Z'))).toBe(
      'Friday, 25 December 2026 at 11:30 pm IST',
    );
    // 19:00 UTC is 00:30 IST the next day.
    expect(istInWords(new Date('2026-12-31T19:00:00Z'))).toBe(
      'Friday, 1 January 2027 at 12:30 am IST',
    );
  });

  it('says how often a recurring mandate may debit', () => {
    expect(cycleWords('monthly')).toBe('at most once a month');
    expect(cycleWords('half_yearly')).toBe('at most once every six months');
    expect(cycleWords('bimonthly')).toBe('at most once every two months');
    expect(cycleWords('as_presented')).toBe('whenever a bill falls due (no fixed cycle)');
  });

  it('reads the maximum per debit the person typed in rupees', () => {
    expect(rupeesInput('1,250.50')).toBe(125_050);
    expect(rupeesInput('₹ 750')).toBe(75_000);
    expect(rupeesInput('7.5')).toBe(750);
    expect(rupeesInput('lots')).toBeNull();
  });
});
