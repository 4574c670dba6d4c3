import { formatRupees } from '../common/money';
import type { ForexFile } from './entities/forex-file.entity';
import type { ForexQuote } from './entities/forex-quote.entity';
import { daysBetween, istDate } from './financial-year';
import { EDITABLE_STATUSES, FileStatus } from './forex-file.state';
import { formatUsdCents } from './forex-format';
import {
  cashLimitFor,
  KIND_RULES,
  LRS_LIMIT_USD_CENTS,
  MAX_DAYS_BEFORE_DEPARTURE,
  requiredDocuments,
} from './forex-rules';

export type ChecklistStatus = 'done' | 'missing' | 'failed' | 'pending' | 'info';

export interface ChecklistItem {
  key: string;
  label: string;
  status: ChecklistStatus;
  detail: string;
}

export interface Checklist {
  /** True when nothing is missing or failing (the declaration, asked on submit, may be pending). */
  complete: boolean;
  /** Keys of the items that are missing or failing. */
  missing: string[];
  items: ChecklistItem[];
}

export interface ChecklistFacts {
  file: Pick<
    ForexFile,
    | 'kind'
    | 'purposeCode'
    | 'destinationCountry'
    | 'departureDate'
    | 'panMasked'
    | 'panHolderType'
    | 'declaredAt'
    | 'status'
  >;
  /** The status as read now (an overdue declaration reads expired). */
  status: FileStatus;
  documentKinds: string[];
  /** The file's current quote; ignored while the file is returned (a fresh one is needed). */
  quote: ForexQuote | null;
  /** USD cents this PAN's other files committed in the quote's financial year. */
  lrsPriorUsdCents: number;
  now: Date;
}

/**
 * What the partner must see satisfied before the file goes to the dealer (DOMAIN.md part B):
 * PAN, the documents of the kind and purpose, a live rate lock, the 60-day window, the cash limit,
 * the LRS limit, TCS (shown), and the person's declaration (asked on submit).
 */
export function buildChecklist(f: ChecklistFacts): Checklist {
  const rule = KIND_RULES[f.file.kind];
  const beforeSubmit = EDITABLE_STATUSES.includes(f.status);
  const quote = f.status === 'returned' ? null : f.quote;
  const items: ChecklistItem[] = [];

  items.push({
    key: 'pan',
    label: 'PAN',
    status: 'done',
    detail: `${f.file.panMasked} on file (kept only as a keyed hash and this masked form)`,
  });

  for (const req of requiredDocuments(f.file.kind, f.file.purposeCode)) {
    const have = req.kinds.some((k) => f.documentKinds.includes(k));
    items.push({
      key: req.key,
      label: req.label,
      status: have ? 'done' : 'missing',
      detail: have ? 'Uploaded' : `Upload a document of kind ${req.kinds.join(' or ')}`,
    });
  }

  if (rule.travel && f.file.departureDate) {
    const days = daysBetween(istDate(f.now), f.file.departureDate);
    const ok = !beforeSubmit || (days >= 0 && days <= MAX_DAYS_BEFORE_DEPARTURE);
    items.push({
      key: 'departure_window',
      label: `Departure within ${MAX_DAYS_BEFORE_DEPARTURE} days`,
      status: ok ? 'done' : 'failed',
      detail:
        days < 0
          ? `Departure date ${f.file.departureDate} has passed`
          : `Departs ${f.file.departureDate}, in ${days} day${days === 1 ? '' : 's'}`,
    });
  }

  if (!quote) {
    items.push({
      key: 'quote',
      label: 'Quote with a rate lock',
      status: 'missing',
      detail:
        f.status === 'returned'
          ? 'The dealer returned the file: request a fresh quote'
          : 'Request a quote (POST /v1/pay/forex/quotes)',
    });
  } else {
    const live = f.now.getTime() < quote.rateLockedUntil.getTime();
    items.push({
      key: 'quote',
      label: 'Quote with a rate lock',
      status: !beforeSubmit || live ? 'done' : 'failed',
      detail: !beforeSubmit
        ? `Rate locked by quote ${quote.id} when the file was submitted`
        : live
          ? `Rates locked until ${quote.rateLockedUntil.toISOString()}`
          : `The rate lock lapsed at ${quote.rateLockedUntil.toISOString()}: request a fresh quote`,
    });
  }

  if (rule.cashLimit && quote) {
    const cash = cashLimitFor(f.file.destinationCountry, f.file.purposeCode);
    const over = cash.usdCents !== null && quote.notesUsdCents > cash.usdCents;
    items.push({
      key: 'cash_limit',
      label: 'Cash (notes) per trip',
      status: over ? 'failed' : 'done',
      detail: `Notes worth ${formatUsdCents(quote.notesUsdCents)}. ${cash.reason}.`,
    });
  }

  if (rule.lrs && quote) {
    const total = f.lrsPriorUsdCents + quote.usdEquivalentCents;
    items.push({
      key: 'lrs_limit',
      label: `LRS limit, financial year ${quote.financialYear}`,
      status: total > LRS_LIMIT_USD_CENTS ? 'failed' : 'done',
      detail: `Used before this file ${formatUsdCents(f.lrsPriorUsdCents)} + this file ${formatUsdCents(
        quote.usdEquivalentCents,
      )} = ${formatUsdCents(total)} of ${formatUsdCents(LRS_LIMIT_USD_CENTS)}`,
    });
  }

  if (rule.tcs && quote?.tcs) {
    items.push({
      key: 'tcs',
      label: 'TCS (s.206C(1G))',
      status: 'info',
      detail: `${formatRupees(quote.tcsPaise)}: ${quote.tcs.rateBps / 100}% (${quote.tcs.category.replace(
        '_',
        ' ',
      )}) on ${formatRupees(quote.tcs.abovePaise)} above the yearly ${formatRupees(
        quote.tcs.thresholdPaise,
      )}; this PAN's earlier files this year ${formatRupees(quote.tcs.priorPaise)}`,
    });
  }

  const declared = f.file.declaredAt !== null && !beforeSubmit;
  items.push({
    key: 'declaration',
    label: rule.declarationLabel,
    status: declared ? 'done' : 'pending',
    detail: declared
      ? `Confirmed by the person in the app at ${f.file.declaredAt!.toISOString()}`
      : 'Asked of the person in the app when the agent submits the file',
  });

  const missing = items.filter((i) => i.status === 'missing' || i.status === 'failed');
  return { complete: missing.length === 0, missing: missing.map((i) => i.key), items };
}
