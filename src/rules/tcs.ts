/**
 * The values of the dated TCS rule (`forex.tcs` in rule-catalog.ts, docs/rules.md): per financial
 * year, the threshold and the rates. Configuration (FOREX_TCS_TABLE) and the forex module read them.
 */
/** TCS rates of one category, in basis points, within and above the yearly threshold. */
export interface TcsRate {
  withinThresholdBps: number;
  aboveThresholdBps: number;
}

export interface TcsYear {
  /** Per PAN per financial year, across its LRS files (₹10 lakh). */
  thresholdPaise: number;
  educationLoan: TcsRate;
  educationMedical: TcsRate;
  other: TcsRate;
}

/** Financial year label ("2025-26") → its TCS rates. */
export type TcsTable = Record<string, TcsYear>;
