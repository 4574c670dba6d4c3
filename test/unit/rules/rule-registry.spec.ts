import { RULES } from '../../../src/rules/rule-catalog';
import {
  istDayStart,
  Rule,
  RuleNotInForceError,
  RuleRegistry,
} from '../../../src/rules/rule-registry';

/** An instant on the IST wall clock. */
const ist = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) =>
  new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms) - 330 * 60_000);

const rule = (over: Partial<Rule<number>> = {}): Rule<number> => ({
  id: 'test.rule',
  title: 'A test rule',
  kind: 'product',
  unit: 'paise',
  versions: [
    { effectiveFrom: '2025-01-01', value: 1, source: 'first', certainty: 'certain' },
    { effectiveFrom: '2025-07-01', value: 2, source: 'second', certainty: 'certain' },
  ],
  configurable: null,
  appliedIn: [],
  pinnedBy: { file: 'x', title: 'y' },
  ...over,
});

describe(RuleRegistry.name, () => {
  it('starts a version at 00:00 IST of its effective date', () => {
    expect(istDayStart('2026-04-01').toISOString()).toBe('2026-03-31T18:30:00.000Z');
    expect(() => istDayStart('1 April 2026')).toThrow(/IST date/);
  });

  it('answers the version in force on each side of a dated change (IST)', () => {
    const r = new RuleRegistry([rule()]);
    expect(r.valueAt('test.rule', ist(2025, 6, 30, 23, 59, 59, 999))).toBe(1);
    expect(r.valueAt('test.rule', ist(2025, 7, 1))).toBe(2);
    expect(r.versionAt('test.rule', ist(2025, 7, 1))?.source).toBe('second');
    expect(r.latest('test.rule')).toBe(2);
  });

  it('refuses a date before the first dated version', () => {
    const r = new RuleRegistry([rule()]);
    expect(r.versionAt('test.rule', ist(2024, 12, 31, 23, 59))).toBeNull();
    expect(() => r.valueAt('test.rule', ist(2024, 12, 31, 23, 59))).toThrow(RuleNotInForceError);
  });

  it('applies an undated first version to every instant before the next one', () => {
    const r = new RuleRegistry([
      rule({
        versions: [
          { effectiveFrom: null, value: 7, source: 'always', certainty: 'certain' },
          { effectiveFrom: '2030-01-01', value: 8, source: 'later', certainty: 'certain' },
        ],
      }),
    ]);
    expect(r.valueAt('test.rule', new Date(0))).toBe(7);
    expect(r.valueAt('test.rule', ist(2029, 12, 31, 23, 59))).toBe(7);
    expect(r.valueAt('test.rule', ist(2030, 1, 1))).toBe(8);
  });

  it('refuses versions out of date order, an undated later version, a duplicate id or an unknown id', () => {
    const v = (effectiveFrom: string | null) => ({
      effectiveFrom,
      value: 1,
      source: 's',
      certainty: 'certain' as const,
    });
    expect(
      () => new RuleRegistry([rule({ versions: [v('2025-07-01'), v('2025-01-01')] })]),
    ).toThrow(/increasing date order/);
    expect(() => new RuleRegistry([rule({ versions: [v('2025-07-01'), v(null)] })])).toThrow(
      /undated/,
    );
    expect(() => new RuleRegistry([rule(), rule()])).toThrow(/twice/);
    expect(() => new RuleRegistry([rule()]).get('nope')).toThrow(/no rule nope/);
  });

  it('refuses an uncertain value the service applies unless it is configurable', () => {
    const uncertain = [
      { effectiveFrom: null, value: 1, source: 's', certainty: 'uncertain' as const },
    ];
    expect(
      () => new RuleRegistry([rule({ versions: uncertain, appliedIn: ['src/x.ts'] })]),
    ).toThrow(/configure it/);
    expect(
      () =>
        new RuleRegistry([
          rule({
            versions: uncertain,
            appliedIn: ['src/x.ts'],
            configurable: { env: 'X', note: 'wins' },
          }),
        ]),
    ).not.toThrow();
  });

  it('holds every rule the issue names, each with a source and a certainty on every version', () => {
    const ids = RULES.all().map((r) => r.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'payments.approval_threshold',
        'payments.daily_cap_default',
        'delegated_token.max_lifetime',
        'autopay.afa_free_ceiling',
        'autopay.pre_debit_notice_lead',
        'autopay.blocked_windows_ist',
        'autopay.status_check_max',
        'autopay.status_check_min_spacing',
        'reserve_pay.block_cap',
        'reserve_pay.block_validity_days',
        'reserve_pay.retries_per_24h',
        'forex.lrs_limit',
        'forex.cash_per_trip',
        'forex.cash_per_trip_iraq_libya',
        'forex.max_days_before_departure',
        'forex.tcs',
      ]),
    );
    for (const r of RULES.all()) {
      for (const v of r.versions) {
        expect(v.source.length).toBeGreaterThan(10);
        expect(['certain', 'uncertain']).toContain(v.certainty);
      }
    }
  });
});
