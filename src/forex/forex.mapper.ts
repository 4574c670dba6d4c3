import { currencyInfo } from './currencies';
import type {
  ForexCurrencyRate,
  ForexDocumentResponse,
  ForexFileResponse,
  ForexFileSummary,
  ForexPartnerResponse,
  ForexQuoteResponse,
} from './dto/forex-responses';
import type { ForexDocument } from './entities/forex-document.entity';
import type { ForexFile } from './entities/forex-file.entity';
import type { ForexPartner } from './entities/forex-partner.entity';
import type { ForexQuote } from './entities/forex-quote.entity';
import type { ForexRate } from './entities/forex-rate.entity';
import type { Checklist } from './forex-checklist';
import type { FileStatus } from './forex-file.state';
import { KIND_RULES, LRS_LIMIT_USD_CENTS, PURPOSE_CODES } from './forex-rules';

/** Entity → wire (snake_case) for the forex routes. Never maps a PAN other than pan_masked. */

export function toPartnerResponse(p: ForexPartner): ForexPartnerResponse {
  return {
    id: p.id,
    object: 'forex_partner',
    name: p.name,
    licence_number: p.licenceNumber,
    category: 'AD Category-II',
    service_fee_paise: p.serviceFeePaise,
    created_at: p.createdAt.toISOString(),
  };
}

export function toCurrencyRate(r: ForexRate): ForexCurrencyRate {
  const info = currencyInfo(r.currency);
  return {
    currency: r.currency,
    minor_units: info?.minorUnits ?? 2,
    market_quotes_per: info?.feedQuotedPer ?? 1,
    notes: { buy: r.notesBuy, sell: r.notesSell },
    card_remittance: { buy: r.cardBuy, sell: r.cardSell },
    set_at: r.setAt.toISOString(),
  };
}

export function toQuoteResponse(q: ForexQuote, now: Date): ForexQuoteResponse {
  return {
    id: q.id,
    object: 'forex_quote',
    file_id: q.fileId,
    lines: q.lines.map((l) => ({ ...l })),
    rupees_paise: q.rupeesPaise,
    fee_paise: q.feePaise,
    tcs_paise: q.tcsPaise,
    total_paise: q.totalPaise,
    direction: q.direction,
    usd_equivalent_cents: q.usdEquivalentCents,
    financial_year: q.financialYear,
    tcs: q.tcs
      ? {
          category: q.tcs.category,
          threshold_paise: q.tcs.thresholdPaise,
          prior_paise: q.tcs.priorPaise,
          above_paise: q.tcs.abovePaise,
          rate_bps: q.tcs.rateBps,
        }
      : null,
    rate_locked_until: q.rateLockedUntil.toISOString(),
    lock_lapsed: now.getTime() >= q.rateLockedUntil.getTime(),
    created_at: q.createdAt.toISOString(),
  };
}

export function toDocumentResponse(d: ForexDocument): ForexDocumentResponse {
  return {
    id: d.id,
    object: 'forex_document',
    file_id: d.fileId,
    kind: d.kind,
    content_type: d.contentType,
    size_bytes: d.sizeBytes,
    sha256: d.sha256,
    filename: d.filename,
    created_at: d.createdAt.toISOString(),
  };
}

export function toFileSummary(f: ForexFile, status: FileStatus): ForexFileSummary {
  return {
    id: f.id,
    object: 'forex_file',
    status,
    kind: f.kind,
    purpose_code: f.purposeCode,
    partner_id: f.partnerId,
    traveller_name: f.travellerName,
    destination_country: f.destinationCountry,
    pan_masked: f.panMasked,
    current_quote_id: f.currentQuoteId,
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}

export interface FileViewParts {
  status: FileStatus;
  partner: ForexPartner;
  documents: ForexDocument[];
  quote: ForexQuote | null;
  lrsPriorUsdCents: number;
  checklist: Checklist;
  declarationUrl: string;
  now: Date;
}

export function toFileResponse(f: ForexFile, p: FileViewParts): ForexFileResponse {
  const rule = KIND_RULES[f.kind];
  const declaration =
    p.status === 'expired'
      ? 'expired'
      : f.declaredAt && ['submitted', 'booked', 'rejected'].includes(p.status)
        ? 'declared'
        : p.status === 'awaiting_declaration'
          ? 'awaiting'
          : 'not_requested';
  return {
    ...toFileSummary(f, p.status),
    purpose: PURPOSE_CODES[f.purposeCode] ?? f.purposeCode,
    partner: { id: p.partner.id, name: p.partner.name, licence_number: p.partner.licenceNumber },
    person_id: f.personId,
    beneficiary_name: f.beneficiaryName,
    company_name: f.companyName,
    departure_date: f.departureDate,
    return_date: f.returnDate,
    education_loan_funded: f.educationLoanFunded,
    notes: f.notes,
    checklist: p.checklist,
    documents: p.documents.map(toDocumentResponse),
    quote: p.quote ? toQuoteResponse(p.quote, p.now) : null,
    lrs:
      rule.lrs && p.quote
        ? {
            financial_year: p.quote.financialYear,
            limit_usd_cents: LRS_LIMIT_USD_CENTS,
            used_before_usd_cents: p.lrsPriorUsdCents,
            this_file_usd_cents: p.quote.usdEquivalentCents,
          }
        : null,
    declaration: {
      status: declaration,
      due_at:
        p.status === 'awaiting_declaration' ? (f.declarationDueAt?.toISOString() ?? null) : null,
      declared_at: declaration === 'declared' ? (f.declaredAt?.toISOString() ?? null) : null,
      url: p.declarationUrl,
    },
    dealer_notes: f.dealerNotes.map((n) => ({ ...n })),
    deal_reference: f.dealReference,
    booked_at: f.status === 'booked' ? (f.decidedAt?.toISOString() ?? null) : null,
    receipt_id: f.receiptId,
  };
}
