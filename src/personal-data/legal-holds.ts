import type { DataRightsConfig } from '../config/app.config';

/**
 * Records a law requires us to keep after a person asks for erasure (DPDP Act 2023 s.8(7): erase
 * "unless retention is necessary for compliance with any law"; DOMAIN.md 28a, 28b). Each class is
 * kept, minimised (names, contact details and free text go) and locked from every other use until
 * its hold ends. The periods are [U]: sandbox values to be confirmed (LEGAL_HOLD_PAYMENT_YEARS,
 * LEGAL_HOLD_KYC_YEARS); docs/personal-data.md "What we keep after erasure, and why".
 */
export interface LegalHoldRule {
  kind: 'payment_records' | 'refund_records' | 'mandate_records' | 'forex_records';
  label: string;
  rule: string;
  years: (c: DataRightsConfig) => number;
  uncertain: boolean;
}

export const LEGAL_HOLDS: LegalHoldRule[] = [
  {
    kind: 'payment_records',
    label: 'Payments and their signed receipts',
    rule: 'Payment system records: RBI directions and the Prevention of Money-laundering Act 2002 (s.12) — kept for years after the transaction',
    years: (c) => c.paymentRecordsYears,
    uncertain: true,
  },
  {
    kind: 'refund_records',
    label: 'Refunds',
    rule: 'Part of the payment record they reverse: RBI directions and the Prevention of Money-laundering Act 2002 (s.12)',
    years: (c) => c.paymentRecordsYears,
    uncertain: true,
  },
  {
    kind: 'mandate_records',
    label: 'UPI mandates (what you authorised, limits, when)',
    rule: 'The authority for payments made under it: kept with the payment records (RBI directions, PMLA s.12)',
    years: (c) => c.paymentRecordsYears,
    uncertain: true,
  },
  {
    kind: 'forex_records',
    label: 'Forex files: masked PAN, amounts, LRS use, documents and the signed file history',
    rule: 'KYC and foreign-exchange records: PMLA 2002 s.12 and RBI KYC directions, FEMA 1999 (LRS) — kept for years after the file',
    years: (c) => c.kycRecordsYears,
    uncertain: true,
  },
];

export function holdUntil(from: Date, years: number): Date {
  const d = new Date(from.getTime());
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d;
}
