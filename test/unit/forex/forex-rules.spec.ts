import { DEFAULT_FOREX_TCS_TABLE, loadConfig } from '../../../src/config/app.config';
import { financialYearOf, financialYearStart, istDate } from '../../../src/forex/financial-year';
import { buildChecklist } from '../../../src/forex/forex-checklist';
import { canMove, FILE_MOVES, FILE_STATUSES, FileMove } from '../../../src/forex/forex-file.state';
import {
  cashLimitFor,
  computeTcs,
  requiredDocuments,
  tcsCategoryOf,
} from '../../../src/forex/forex-rules';
import { PanVault } from '../../../src/forex/pan-vault';

describe('financial year (IST)', () => {
  it('31 March 23:59:59.999 IST is the old year; 1 April 00:00 IST the new one', () => {
    const lastMs = new Date('2026-03-31T23:59:59.999+05:30');
    const first = new Date('2026-04-01T00:00:00.000+05:30');
    expect(financialYearOf(lastMs)).toBe('2025-26');
    expect(financialYearOf(first)).toBe('2026-27');
    expect(financialYearStart('2026-27').getTime()).toBe(first.getTime());
    // 18:29:59 UTC on 31 March is already... still 23:59:59 IST
    expect(financialYearOf(new Date('2026-03-31T18:29:59Z'))).toBe('2025-26');
    expect(financialYearOf(new Date('2026-03-31T18:30:00Z'))).toBe('2026-27');
    expect(istDate(new Date('2026-03-31T18:30:00Z'))).toBe('2026-04-01');
    expect(financialYearOf(new Date('2100-01-15T00:00:00Z'))).toBe('2099-00');
  });
});

describe('TCS', () => {
  const fy25 = DEFAULT_FOREX_TCS_TABLE['2025-26'];
  const fy26 = DEFAULT_FOREX_TCS_TABLE['2026-27'];
  const LAKH10 = 100_000_000;

  it('nothing up to ₹10 lakh; 20% on the part above for other purposes', () => {
    expect(computeTcs(fy25, 'other', 0, LAKH10).tcsPaise).toBe(0);
    expect(computeTcs(fy25, 'other', 0, LAKH10 + 100).tcsPaise).toBe(20);
    expect(computeTcs(fy25, 'other', LAKH10 - 100, 200).tcsPaise).toBe(20);
    expect(computeTcs(fy25, 'other', LAKH10 + 500, 1000).tcsPaise).toBe(200);
  });

  it('education and medical 5% above (FY 2025-26), 2% (FY 2026-27); loan-funded education nil', () => {
    expect(computeTcs(fy25, 'education_medical', 0, LAKH10 + 1000).tcsPaise).toBe(50);
    expect(computeTcs(fy26, 'education_medical', 0, LAKH10 + 1000).tcsPaise).toBe(20);
    expect(computeTcs(fy26, 'education_loan', 0, LAKH10 * 5).tcsPaise).toBe(0);
    expect(tcsCategoryOf('S0305', true)).toBe('education_loan');
    expect(tcsCategoryOf('S0305', false)).toBe('education_medical');
    expect(tcsCategoryOf('S0304', false)).toBe('education_medical');
    expect(tcsCategoryOf('S0306', false)).toBe('other');
  });

  it('reads a table from FOREX_TCS_TABLE', () => {
    const c = loadConfig({
      FOREX_TCS_TABLE: JSON.stringify({
        '2027-28': {
          threshold_paise: 1,
          education_loan: { within_threshold_bps: 0, above_threshold_bps: 0 },
          education_medical: { within_threshold_bps: 0, above_threshold_bps: 100 },
          other: { within_threshold_bps: 0, above_threshold_bps: 1000 },
        },
      }),
    });
    expect(c.forexTcsTable['2027-28'].other.aboveThresholdBps).toBe(1000);
    expect(() => loadConfig({ FOREX_TCS_TABLE: '{"x":1}' })).toThrow(/FOREX_TCS_TABLE/);
  });

  it('needs a pepper in live mode (the PAN vault stops the boot) and never echoes it', () => {
    const live = loadConfig({
      MODE: 'live',
      BASE_URL: 'https://x.example',
      SIGNING_PRIVATE_KEY: 'k',
      WEBHOOK_SECRET_KEY: Buffer.alloc(32).toString('base64'),
    });
    expect(live.forexPanPepper).toBeNull();
    expect(() => new PanVault(live).onModuleInit()).toThrow(/FOREX_PAN_PEPPER is required/);
    const given = loadConfig({ FOREX_PAN_PEPPER: 'ab'.repeat(32) });
    expect(given.forexPanPepper).toEqual(Buffer.from('ab'.repeat(32), 'hex'));
    expect(loadConfig({}).forexPanPepper).toHaveLength(32);
    expect(() => loadConfig({ FOREX_PAN_PEPPER: 'short-secret-value' })).toThrow(
      /^FOREX_PAN_PEPPER must be 32 bytes[^"]*$/,
    );
  });
});

describe('cash per trip and documents', () => {
  it('USD 3,000; Iraq and Libya 5,000; Iran, Russia, CIS the whole amount', () => {
    expect(cashLimitFor('AE', 'S0306').usdCents).toBe(300_000);
    expect(cashLimitFor('IQ', 'S0306').usdCents).toBe(500_000);
    expect(cashLimitFor('LY', 'S0301').usdCents).toBe(500_000);
    expect(cashLimitFor('RU', 'S0306').usdCents).toBeNull();
    expect(cashLimitFor('KZ', 'S0306').usdCents).toBeNull();
    expect(cashLimitFor('SA', 'S0303').usdCents).toBeNull();
    expect(cashLimitFor('SA', 'S0306').usdCents).toBe(300_000);
  });

  it('asks for what each kind and purpose needs', () => {
    const keys = (k: Parameters<typeof requiredDocuments>[0], p: string) =>
      requiredDocuments(k, p).map((r) => r.key);
    expect(keys('travel', 'S0306')).toEqual(['passport', 'visa_or_ticket']);
    expect(keys('travel', 'S0305')).toEqual(['passport', 'visa_or_ticket', 'admission_letter']);
    expect(keys('remittance', 'S0304')).toEqual(['medical_letter']);
    expect(keys('remittance', 'S1301')).toEqual([]);
    expect(keys('corporate_travel', 'S0301')).toEqual([
      'passport',
      'visa_or_ticket',
      'company_letter',
    ]);
    expect(keys('buy_back', 'S0306')).toEqual(['passport']);
  });
});

describe('file state machine', () => {
  it('allows exactly the documented moves', () => {
    const allowed: Record<string, string[]> = {
      quote: ['draft', 'quoted', 'returned'],
      submit: ['quoted'],
      declare: ['awaiting_declaration'],
      expire: ['awaiting_declaration'],
      book: ['submitted'],
      return: ['submitted'],
      reject: ['submitted'],
    };
    for (const move of Object.keys(FILE_MOVES) as FileMove[]) {
      for (const s of FILE_STATUSES) {
        expect([move, s, canMove(s, move)]).toEqual([move, s, allowed[move].includes(s)]);
      }
    }
  });
});

describe('checklist', () => {
  const base = {
    file: {
      kind: 'travel' as const,
      purposeCode: 'S0306',
      destinationCountry: 'AE',
      departureDate: '2026-05-10',
      panMasked: 'XXXXX1234F',
      panHolderType: 'P',
      declaredAt: null,
      status: 'draft' as const,
    },
    status: 'draft' as const,
    documentKinds: [] as string[],
    quote: null,
    lrsPriorUsdCents: 0,
    now: new Date('2026-04-20T10:00:00+05:30'),
  };

  it('names what is missing', () => {
    const c = buildChecklist(base);
    expect(c.complete).toBe(false);
    expect(c.missing).toEqual(['passport', 'visa_or_ticket', 'quote']);
  });

  it('fails the 60-day window', () => {
    const c = buildChecklist({
      ...base,
      file: { ...base.file, departureDate: '2026-06-20' },
      documentKinds: ['passport', 'ticket'],
    });
    expect(c.missing).toEqual(['departure_window', 'quote']);
  });
});
