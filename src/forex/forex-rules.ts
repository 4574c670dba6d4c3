import { RULES } from '../rules/rule-catalog';
import type { TcsRate, TcsTable, TcsYear } from '../rules/tcs';
import { basisPointsOf } from './forex-amounts';

/**
 * The rules an AD Category-II partner applies to a file (DOMAIN.md part B), as data and pure
 * functions. Sandbox values, to be confirmed (spec §8); TCS rates come from configuration
 * (FOREX_TCS_TABLE, keyed by financial year).
 */

export const FILE_KINDS = ['travel', 'remittance', 'buy_back', 'corporate_travel'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

export const PRODUCTS = ['notes', 'card', 'remittance'] as const;
export type Product = (typeof PRODUCTS)[number];

/** Outward purpose codes (DOMAIN.md B.19) the service accepts. */
export const PURPOSE_CODES: Record<string, string> = {
  S0301: 'Business travel',
  S0303: 'Pilgrimage',
  S0304: 'Medical treatment abroad',
  S0305: 'Education abroad',
  S0306: 'Other travel (holidays, personal visits)',
  S1301: 'Family maintenance and savings',
  S1302: 'Personal gifts and donations',
};

const INDIVIDUAL = ['P'] as const;
/** A company pays for corporate travel: any PAN that is not an individual's or an HUF's. */
const ENTITY = ['C', 'F', 'A', 'T', 'B', 'L', 'J', 'G'] as const;

export interface KindRule {
  label: string;
  purposes: readonly string[];
  products: readonly Product[];
  /** PAN holder types (4th letter) accepted. */
  panHolderTypes: readonly string[];
  /** Departure date required (and the 60-day window applies). */
  travel: boolean;
  /** Counts towards the person's LRS limit (USD 250,000 per financial year). */
  lrs: boolean;
  /** TCS under s.206C(1G) applies. */
  tcs: boolean;
  /** Foreign-currency notes limited per trip. */
  cashLimit: boolean;
  /** sell: the partner sells foreign currency (the person pays rupees); buy: buys it back. */
  rateSide: 'sell' | 'buy';
  declarationLabel: string;
}

export const KIND_RULES: Record<FileKind, KindRule> = {
  travel: {
    label: 'Travel currency (notes and/or card)',
    purposes: ['S0301', 'S0303', 'S0304', 'S0305', 'S0306'],
    products: ['notes', 'card'],
    panHolderTypes: INDIVIDUAL,
    travel: true,
    lrs: true,
    tcs: true,
    cashLimit: true,
    rateSide: 'sell',
    declarationLabel: 'Form A2 and LRS declaration',
  },
  remittance: {
    label: 'LRS outward remittance',
    purposes: ['S0304', 'S0305', 'S1301', 'S1302'],
    products: ['remittance'],
    panHolderTypes: INDIVIDUAL,
    travel: false,
    lrs: true,
    tcs: true,
    cashLimit: false,
    rateSide: 'sell',
    declarationLabel: 'Form A2 and LRS declaration',
  },
  buy_back: {
    label: 'Buy-back of unspent foreign currency',
    purposes: ['S0301', 'S0303', 'S0304', 'S0305', 'S0306'],
    products: ['notes', 'card'],
    panHolderTypes: INDIVIDUAL,
    travel: false,
    lrs: false,
    tcs: false,
    cashLimit: false,
    rateSide: 'buy',
    declarationLabel: 'Declaration of the currency sold back',
  },
  corporate_travel: {
    label: 'Corporate travel (paid by the company)',
    purposes: ['S0301'],
    products: ['notes', 'card'],
    panHolderTypes: ENTITY,
    travel: true,
    lrs: false,
    tcs: false,
    cashLimit: true,
    rateSide: 'sell',
    declarationLabel: 'Form A2 declaration (for the company)',
  },
};

/** Forex may be drawn at most this many days before departure (DOMAIN.md B.23). */
export const MAX_DAYS_BEFORE_DEPARTURE = RULES.latest<number>('forex.max_days_before_departure');

/** LRS: USD 250,000 per person per financial year, in US cents (DOMAIN.md B.14). */
export const LRS_LIMIT_USD_CENTS = RULES.latest<number>('forex.lrs_limit');

/** Private visits to Nepal and Bhutan are outside LRS: no foreign currency is released. */
export const NO_FOREX_DESTINATIONS = ['NP', 'BT'];

/** Cash per trip (DOMAIN.md B.21), in US cents; null = the whole entitlement may be cash. */
export const CASH_LIMIT_USD_CENTS = RULES.latest<number>('forex.cash_per_trip');
const CASH_LIMIT_IRAQ_LIBYA = RULES.latest<number>('forex.cash_per_trip_iraq_libya');
/** Iran, Russia and the other CIS republics: the whole entitlement may be taken in cash. */
const WHOLE_IN_CASH = [
  'IR',
  'RU',
  'AM',
  'AZ',
  'BY',
  'GE',
  'KZ',
  'KG',
  'MD',
  'TJ',
  'TM',
  'UA',
  'UZ',
];

export interface CashLimit {
  usdCents: number | null;
  reason: string;
}

export function cashLimitFor(destination: string, purpose: string): CashLimit {
  if (destination === 'IQ' || destination === 'LY') {
    return { usdCents: CASH_LIMIT_IRAQ_LIBYA, reason: 'Iraq and Libya: up to USD 5,000 in cash' };
  }
  if (WHOLE_IN_CASH.includes(destination)) {
    return {
      usdCents: null,
      reason: 'Iran, Russia and the CIS republics: the whole amount may be taken in cash',
    };
  }
  if (destination === 'SA' && purpose === 'S0303') {
    return {
      usdCents: null,
      reason: 'Haj/Umrah: cash as the Haj Committee allows; the dealer checks it',
    };
  }
  return { usdCents: CASH_LIMIT_USD_CENTS, reason: 'Up to USD 3,000 per trip in cash' };
}

/** Document kinds a file may carry. Aadhaar is never one of them. */
export const DOCUMENT_KINDS = [
  'passport',
  'visa',
  'ticket',
  'company_letter',
  'admission_letter',
  'medical_letter',
  'form_a2',
  'other',
] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export interface DocumentRequirement {
  key: string;
  label: string;
  /** Any one of these kinds satisfies it. */
  kinds: readonly DocumentKind[];
}

/** The documents a file of this kind and purpose needs (DOMAIN.md B.20). */
export function requiredDocuments(kind: FileKind, purpose: string): DocumentRequirement[] {
  const out: DocumentRequirement[] = [];
  if (kind === 'travel' || kind === 'corporate_travel' || kind === 'buy_back') {
    out.push({ key: 'passport', label: 'Passport', kinds: ['passport'] });
  }
  if (kind === 'travel' || kind === 'corporate_travel') {
    out.push({
      key: 'visa_or_ticket',
      label: 'Visa, or the ticket for a visa on arrival',
      kinds: ['visa', 'ticket'],
    });
  }
  if (kind === 'corporate_travel') {
    out.push({ key: 'company_letter', label: "The company's letter", kinds: ['company_letter'] });
  }
  if (kind !== 'buy_back' && purpose === 'S0305') {
    out.push({
      key: 'admission_letter',
      label: 'Admission letter of the institution',
      kinds: ['admission_letter'],
    });
  }
  if (kind !== 'buy_back' && purpose === 'S0304') {
    out.push({
      key: 'medical_letter',
      label: "The hospital's or doctor's letter",
      kinds: ['medical_letter'],
    });
  }
  return out;
}

// The shape of the TCS rule's values lives with the rules registry (config reads it too).
export type { TcsRate, TcsTable, TcsYear };

export type TcsCategory = 'education_loan' | 'education_medical' | 'other';

export function tcsCategoryOf(purpose: string, educationLoanFunded: boolean): TcsCategory {
  if (purpose === 'S0305' && educationLoanFunded) {
    return 'education_loan';
  }
  return purpose === 'S0305' || purpose === 'S0304' ? 'education_medical' : 'other';
}

export interface TcsComputation {
  category: TcsCategory;
  thresholdPaise: number;
  /** Rupees of this PAN's other LRS files in the same financial year. */
  priorPaise: number;
  /** The part of this file's rupees above the threshold. */
  abovePaise: number;
  rateBps: number;
  tcsPaise: number;
}

/**
 * TCS on `basePaise` (this file's rupees), given what the same PAN already used this financial
 * year: the part within the threshold at the within rate, the part above at the above rate, each
 * rounded half up to the paisa and summed.
 */
export function computeTcs(
  year: TcsYear,
  category: TcsCategory,
  priorPaise: number,
  basePaise: number,
): TcsComputation {
  const rate =
    category === 'education_loan'
      ? year.educationLoan
      : category === 'education_medical'
        ? year.educationMedical
        : year.other;
  const over = (x: number) => Math.max(0, x - year.thresholdPaise);
  const abovePaise = over(priorPaise + basePaise) - over(priorPaise);
  const withinPaise = basePaise - abovePaise;
  return {
    category,
    thresholdPaise: year.thresholdPaise,
    priorPaise,
    abovePaise,
    rateBps: rate.aboveThresholdBps,
    tcsPaise:
      basisPointsOf(withinPaise, rate.withinThresholdBps) +
      basisPointsOf(abovePaise, rate.aboveThresholdBps),
  };
}
