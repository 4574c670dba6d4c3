import { z } from 'zod';

import { AppError } from '../../common/errors/app-error';
import { DOCUMENT_TYPES } from '../../documents/document-content';
import { CURRENCY_CODES } from '../../forex/currencies';
import type {
  ForexDocumentResponse,
  ForexFileResponse,
  ForexQuoteResponse,
} from '../../forex/dto/forex-responses';
import { FILE_STATUSES } from '../../forex/forex-file.state';
import { DOCUMENT_KINDS, FILE_KINDS, PRODUCTS } from '../../forex/forex-rules';
import { McpToolError } from '../mcp-tool';

/*
 * Argument and result schemas shared by the forex tools (docs/mcp.md "MCP server", docs/forex.md "Forex files").
 * Results are closed schemas built field by field from the REST responses (see McpTool), so the
 * MCP results and the REST bodies carry the same fields with the same meaning.
 */

const CURRENCIES = CURRENCY_CODES as [string, ...string[]];

export const FILE_ID = z
  .string()
  .regex(/^fxo_[A-Za-z0-9]{1,64}$/, { error: 'must be a forex file id (fxo_…)' })
  .describe('The forex file (fxo_…), one of your own.');

export const IDEMPOTENCY_KEY = z
  .string()
  .min(1)
  .max(255)
  .describe(
    'Any unique string (e.g. a UUID), 1–255 characters. Repeating the call with the same key and arguments returns the first result (replayed: true); other arguments with that key are refused (idempotency_conflict). Shared with the REST Idempotency-Key of the same route.',
  );

export const CURRENCY = z
  .enum(CURRENCIES, { error: `must be one of ${CURRENCY_CODES.join(', ')}` })
  .describe('ISO 4217 code');

/** Decimal text only; the currency's minor units and the size limits are the service's rules. */
export const FOREIGN_AMOUNT = z
  .string()
  .max(40)
  .regex(/^[0-9]+(\.[0-9]+)?$/, {
    error:
      'must be a decimal string such as "1500.50" (digits, one optional "."; no sign, exponent or separators)',
  })
  .describe(
    'Foreign amount as a decimal string with at most the currency\'s minor units (USD 2, JPY 0), e.g. "1500.50". Not a number.',
  );

export const DOCUMENT_KIND = z
  .enum(DOCUMENT_KINDS, {
    error: `must be one of ${DOCUMENT_KINDS.join(', ')} (an Aadhaar card is never accepted: aadhaar_not_collected)`,
  })
  .describe('What the document is. Aadhaar is never collected.');

export const CONTENT_TYPE = z
  .enum(DOCUMENT_TYPES, { error: `must be one of ${DOCUMENT_TYPES.join(', ')}` })
  .describe('The declared type; it must match the bytes (magic bytes), or document_type_mismatch.');

const rateFields = 'integer ten-thousandths of a rupee per ONE unit (839312 = ₹83.9312)';

export const RATES = z.object({
  partner_id: z.string(),
  unit: z.string(),
  rates: z.array(
    z.object({
      currency: z.string(),
      minor_units: z.number().int().describe('Decimals a foreign amount may carry'),
      market_quotes_per: z
        .number()
        .int()
        .describe('How the market quotes it (JPY per 100); these rates are per ONE unit'),
      notes: z.object({ buy: z.number().int(), sell: z.number().int() }).describe(rateFields),
      card_remittance: z
        .object({ buy: z.number().int(), sell: z.number().int() })
        .describe(`Forex card and outward remittance rates, ${rateFields}`),
      set_at: z.string(),
    }),
  ),
});

export const QUOTE = z.object({
  id: z.string().describe('The quote (fxq_…)'),
  file_id: z.string(),
  lines: z.array(
    z.object({
      currency: z.string(),
      product: z.enum(PRODUCTS),
      foreign_amount: z.string(),
      rate: z.number().int().describe(`The locked rate, ${rateFields}`),
      rate_side: z.enum(['buy', 'sell']),
      rupees_paise: z
        .number()
        .int()
        .describe('foreign_amount × rate, rounded half up to the paisa'),
      usd_cents: z.number().int(),
    }),
  ),
  rupees_paise: z.number().int(),
  fee_paise: z.number().int(),
  tcs_paise: z.number().int(),
  total_paise: z.number().int(),
  direction: z.enum(['person_pays', 'person_receives']),
  usd_equivalent_cents: z.number().int(),
  financial_year: z.string(),
  tcs: z
    .object({
      category: z.string(),
      threshold_paise: z.number().int(),
      prior_paise: z.number().int(),
      above_paise: z.number().int(),
      rate_bps: z.number().int(),
    })
    .nullable(),
  rate_locked_until: z.string().describe('Submit before this (15 minutes after the quote)'),
  lock_lapsed: z.boolean(),
  created_at: z.string(),
});

export const DOCUMENT = z.object({
  id: z.string().describe('The document (fxd_…)'),
  file_id: z.string(),
  kind: z.enum(DOCUMENT_KINDS),
  content_type: z.enum(DOCUMENT_TYPES),
  size_bytes: z.number().int(),
  sha256: z.string().describe('SHA-256 of the bytes, hex; also on the receipt'),
  filename: z.string().nullable(),
  created_at: z.string(),
});

export const FILE = z.object({
  id: z.string().describe('The file (fxo_…)'),
  status: z.enum(FILE_STATUSES),
  kind: z.enum(FILE_KINDS),
  purpose_code: z.string(),
  purpose: z.string(),
  partner: z.object({ id: z.string(), name: z.string(), licence_number: z.string() }),
  person_id: z.string(),
  traveller_name: z.string(),
  beneficiary_name: z.string().nullable(),
  company_name: z.string().nullable(),
  destination_country: z.string(),
  departure_date: z.string().nullable(),
  return_date: z.string().nullable(),
  pan_masked: z.string().describe('XXXXX1234X; the PAN itself is never returned'),
  education_loan_funded: z.boolean(),
  notes: z.string().nullable(),
  checklist: z.object({
    complete: z.boolean(),
    missing: z.array(z.string()),
    items: z.array(
      z.object({
        key: z.string(),
        label: z.string(),
        status: z.enum(['done', 'missing', 'failed', 'pending', 'info']),
        detail: z.string(),
      }),
    ),
  }),
  documents: z.array(DOCUMENT).describe('Metadata only'),
  quote: QUOTE.nullable(),
  lrs: z
    .object({
      financial_year: z.string(),
      limit_usd_cents: z.number().int(),
      used_before_usd_cents: z.number().int(),
      this_file_usd_cents: z.number().int(),
    })
    .nullable(),
  declaration: z.object({
    status: z.enum(['not_requested', 'awaiting', 'declared', 'expired']),
    due_at: z.string().nullable(),
    declared_at: z.string().nullable(),
    url: z.string().describe("Where the file's person confirms the declaration in the app"),
  }),
  dealer_notes: z.array(
    z.object({
      at: z.string(),
      action: z.enum(['returned', 'rejected', 'booked']),
      note: z.string(),
      dealer_name: z.string(),
    }),
  ),
  deal_reference: z.string().nullable(),
  booked_at: z.string().nullable(),
  receipt_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

type Quote = z.output<typeof QUOTE>;
type Doc = z.output<typeof DOCUMENT>;
type File = z.output<typeof FILE>;

export function quoteView(q: ForexQuoteResponse): Quote {
  return {
    id: q.id,
    file_id: q.file_id,
    lines: q.lines.map((l) => ({
      currency: l.currency,
      product: l.product as Quote['lines'][number]['product'],
      foreign_amount: l.foreign_amount,
      rate: l.rate,
      rate_side: l.rate_side as 'buy' | 'sell',
      rupees_paise: l.rupees_paise,
      usd_cents: l.usd_cents,
    })),
    rupees_paise: q.rupees_paise,
    fee_paise: q.fee_paise,
    tcs_paise: q.tcs_paise,
    total_paise: q.total_paise,
    direction: q.direction as Quote['direction'],
    usd_equivalent_cents: q.usd_equivalent_cents,
    financial_year: q.financial_year,
    tcs: q.tcs
      ? {
          category: q.tcs.category,
          threshold_paise: q.tcs.threshold_paise,
          prior_paise: q.tcs.prior_paise,
          above_paise: q.tcs.above_paise,
          rate_bps: q.tcs.rate_bps,
        }
      : null,
    rate_locked_until: q.rate_locked_until,
    lock_lapsed: q.lock_lapsed,
    created_at: q.created_at,
  };
}

export function documentView(d: ForexDocumentResponse): Doc {
  return {
    id: d.id,
    file_id: d.file_id,
    kind: d.kind as Doc['kind'],
    content_type: d.content_type as Doc['content_type'],
    size_bytes: d.size_bytes,
    sha256: d.sha256,
    filename: d.filename,
    created_at: d.created_at,
  };
}

export function fileView(f: ForexFileResponse): File {
  return {
    id: f.id,
    status: f.status as File['status'],
    kind: f.kind as File['kind'],
    purpose_code: f.purpose_code,
    purpose: f.purpose,
    partner: { id: f.partner.id, name: f.partner.name, licence_number: f.partner.licence_number },
    person_id: f.person_id,
    traveller_name: f.traveller_name,
    beneficiary_name: f.beneficiary_name,
    company_name: f.company_name,
    destination_country: f.destination_country,
    departure_date: f.departure_date,
    return_date: f.return_date,
    pan_masked: f.pan_masked,
    education_loan_funded: f.education_loan_funded,
    notes: f.notes,
    checklist: {
      complete: f.checklist.complete,
      missing: [...f.checklist.missing],
      items: f.checklist.items.map((i) => ({
        key: i.key,
        label: i.label,
        status: i.status as File['checklist']['items'][number]['status'],
        detail: i.detail,
      })),
    },
    documents: f.documents.map(documentView),
    quote: f.quote ? quoteView(f.quote) : null,
    lrs: f.lrs
      ? {
          financial_year: f.lrs.financial_year,
          limit_usd_cents: f.lrs.limit_usd_cents,
          used_before_usd_cents: f.lrs.used_before_usd_cents,
          this_file_usd_cents: f.lrs.this_file_usd_cents,
        }
      : null,
    declaration: {
      status: f.declaration.status as File['declaration']['status'],
      due_at: f.declaration.due_at,
      declared_at: f.declaration.declared_at,
      url: f.declaration.url,
    },
    dealer_notes: f.dealer_notes.map((n) => ({
      at: n.at,
      action: n.action as File['dealer_notes'][number]['action'],
      note: n.note,
      dealer_name: n.dealer_name,
    })),
    deal_reference: f.deal_reference,
    booked_at: f.booked_at,
    receipt_id: f.receipt_id,
    created_at: f.created_at,
    updated_at: f.updated_at,
  };
}

/**
 * Forex errors whose message points at a REST route, or that name no argument, said in the tools'
 * terms: a file error names file_id, a lapsed lock asks for forex_quote.
 */
export function forexToolError(err: unknown): unknown {
  if (!(err instanceof AppError) || err.status >= 500) {
    return err;
  }
  if (err.code === 'rate_lock_lapsed') {
    const at = /lapsed at (\S+):/.exec(err.message)?.[1];
    return new McpToolError(
      err.code,
      `the rate lock lapsed${at ? ` at ${at}` : ''}: call forex_quote for a fresh quote, then submit_file again`,
      'file_id',
    );
  }
  if (err.code === 'quote_stale') {
    return new McpToolError(
      err.code,
      'another file of this PAN was submitted since this quote, which changes its TCS: call forex_quote for a fresh quote, then submit_file again',
      'file_id',
    );
  }
  if (
    err.param === undefined &&
    /^(forex_file_not_found|forex_file_state|checklist_incomplete)$/.test(err.code)
  ) {
    return new McpToolError(err.code, err.message, 'file_id');
  }
  return err;
}
