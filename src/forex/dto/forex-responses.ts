import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';

import { CURRENCY_CODES } from '../currencies';
import { FILE_STATUSES } from '../forex-file.state';
import { DOCUMENT_KINDS, FILE_KINDS, PRODUCTS } from '../forex-rules';

const RATE_UNIT = 'integer ten-thousandths of a rupee per ONE unit (839312 = ₹83.9312)';

/**
 * A property holding one of our objects or null: oneOf the object and a schema that admits null
 * only (OpenAPI 3.0 has no null type; `nullable` widens the `type` beside it, so a `nullable`
 * next to a $ref would not admit null under strict readings).
 */
function nullableRef(model: new () => unknown, description?: string) {
  return {
    oneOf: [
      { $ref: getSchemaPath(model) },
      { type: 'object', nullable: true, enum: [null], description: 'none' },
    ],
    ...(description ? { description } : {}),
  };
}

export class ForexPartnerResponse {
  @ApiProperty({ example: 'fxp_…' }) id: string;
  @ApiProperty({ enum: ['forex_partner'] }) object: 'forex_partner';
  @ApiProperty() name: string;
  @ApiProperty({ description: 'RBI licence number' }) licence_number: string;
  @ApiProperty({ enum: ['AD Category-II'] }) category: 'AD Category-II';
  @ApiProperty({ description: 'Flat fee per quote, paise' }) service_fee_paise: number;
  @ApiProperty() created_at: string;
}

export class RatePair {
  @ApiProperty({ description: `The partner buys from the person (buy-back); ${RATE_UNIT}` })
  buy: number;
  @ApiProperty({ description: `The partner sells to the person; ${RATE_UNIT}` })
  sell: number;
}

export class ForexCurrencyRate {
  @ApiProperty({ enum: CURRENCY_CODES }) currency: string;
  @ApiProperty({ enum: [0, 2], description: 'Decimals a foreign amount may carry' })
  minor_units: number;
  @ApiProperty({
    enum: [1, 100],
    description:
      'How the market quotes it (JPY per 100); the rates here are always per ONE unit, converted on the way in',
  })
  market_quotes_per: number;
  @ApiProperty({ type: RatePair }) notes: RatePair;
  @ApiProperty({ type: RatePair, description: 'Forex card and outward remittance (TT) rates' })
  card_remittance: RatePair;
  @ApiProperty({ description: 'When the dealer (or the seed) set them' }) set_at: string;
}

export class ForexRatesResponse {
  @ApiProperty({ enum: ['forex_rates'] }) object: 'forex_rates';
  @ApiProperty() partner_id: string;
  @ApiProperty({ example: RATE_UNIT }) unit: string;
  @ApiProperty({ type: [ForexCurrencyRate] }) rates: ForexCurrencyRate[];
}

export class ForexQuoteLineResponse {
  @ApiProperty({ enum: CURRENCY_CODES }) currency: string;
  @ApiProperty({ enum: PRODUCTS }) product: string;
  @ApiProperty({ example: '1500.00' }) foreign_amount: string;
  @ApiProperty({ description: `The locked rate, ${RATE_UNIT}` }) rate: number;
  @ApiProperty({ enum: ['buy', 'sell'] }) rate_side: string;
  @ApiProperty({ description: 'foreign_amount × rate, rounded half up to the paisa' })
  rupees_paise: number;
  @ApiProperty({ description: 'USD equivalent in cents, rounded up (for the LRS and cash limits)' })
  usd_cents: number;
}

export class ForexTcsResponse {
  @ApiProperty({ enum: ['education_loan', 'education_medical', 'other'] }) category: string;
  @ApiProperty() threshold_paise: number;
  @ApiProperty({ description: "This PAN's other LRS files this financial year, paise" })
  prior_paise: number;
  @ApiProperty({ description: "The part of this file's rupees above the threshold" })
  above_paise: number;
  @ApiProperty({ description: 'Rate above the threshold, basis points' }) rate_bps: number;
}

@ApiExtraModels(ForexTcsResponse)
export class ForexQuoteResponse {
  @ApiProperty({ example: 'fxq_…' }) id: string;
  @ApiProperty({ enum: ['forex_quote'] }) object: 'forex_quote';
  @ApiProperty() file_id: string;
  @ApiProperty({ type: [ForexQuoteLineResponse] }) lines: ForexQuoteLineResponse[];
  @ApiProperty({ description: 'Sum of the lines, paise' }) rupees_paise: number;
  @ApiProperty({ description: "The partner's service fee, paise" }) fee_paise: number;
  @ApiProperty({ description: 'TCS collected (s.206C(1G)), paise' }) tcs_paise: number;
  @ApiProperty({
    description: 'person_pays: rupees + fee + TCS; person_receives (buy-back): rupees − fee',
  })
  total_paise: number;
  @ApiProperty({ enum: ['person_pays', 'person_receives'] }) direction: string;
  @ApiProperty() usd_equivalent_cents: number;
  @ApiProperty({ example: '2025-26' }) financial_year: string;
  @ApiProperty(nullableRef(ForexTcsResponse)) tcs: ForexTcsResponse | null;
  @ApiProperty({ description: '15 minutes after the quote: submit before it lapses' })
  rate_locked_until: string;
  @ApiProperty() lock_lapsed: boolean;
  @ApiProperty() created_at: string;
}

export class ForexChecklistItem {
  @ApiProperty({ example: 'passport' }) key: string;
  @ApiProperty() label: string;
  @ApiProperty({ enum: ['done', 'missing', 'failed', 'pending', 'info'] }) status: string;
  @ApiProperty() detail: string;
}

export class ForexChecklist {
  @ApiProperty({ description: 'Nothing missing or failing (the declaration is asked on submit)' })
  complete: boolean;
  @ApiProperty({ type: [String] }) missing: string[];
  @ApiProperty({ type: [ForexChecklistItem] }) items: ForexChecklistItem[];
}

export class ForexDocumentResponse {
  @ApiProperty({ example: 'fxd_…' }) id: string;
  @ApiProperty({ enum: ['forex_document'] }) object: 'forex_document';
  @ApiProperty() file_id: string;
  @ApiProperty({ enum: DOCUMENT_KINDS }) kind: string;
  @ApiProperty({ enum: ['application/pdf', 'image/jpeg', 'image/png'] }) content_type: string;
  @ApiProperty() size_bytes: number;
  @ApiProperty({ description: 'SHA-256 of the bytes, hex; also on the receipt' }) sha256: string;
  @ApiProperty({ type: String, nullable: true }) filename: string | null;
  @ApiProperty() created_at: string;
}

export class ForexPartnerRef {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() licence_number: string;
}

export class ForexLrsResponse {
  @ApiProperty({ example: '2025-26' }) financial_year: string;
  @ApiProperty({ example: 25_000_000 }) limit_usd_cents: number;
  @ApiProperty({ description: "This PAN's other files this financial year" })
  used_before_usd_cents: number;
  @ApiProperty() this_file_usd_cents: number;
}

export class ForexDeclarationResponse {
  @ApiProperty({ enum: ['not_requested', 'awaiting', 'declared', 'expired'] }) status: string;
  @ApiProperty({ type: String, nullable: true }) due_at: string | null;
  @ApiProperty({ type: String, nullable: true }) declared_at: string | null;
  @ApiProperty({ description: 'Where the person confirms it (signed in)' }) url: string;
}

export class ForexDealerNote {
  @ApiProperty() at: string;
  @ApiProperty({ enum: ['returned', 'rejected', 'booked'] }) action: string;
  @ApiProperty() note: string;
  @ApiProperty() dealer_name: string;
}

export class ForexFileSummary {
  @ApiProperty({ example: 'fxo_…' }) id: string;
  @ApiProperty({ enum: ['forex_file'] }) object: 'forex_file';
  @ApiProperty({ enum: FILE_STATUSES }) status: string;
  @ApiProperty({ enum: FILE_KINDS }) kind: string;
  @ApiProperty() purpose_code: string;
  @ApiProperty() partner_id: string;
  @ApiProperty() traveller_name: string;
  @ApiProperty() destination_country: string;
  @ApiProperty({ example: 'XXXXX1234F' }) pan_masked: string;
  @ApiProperty({ type: String, nullable: true }) current_quote_id: string | null;
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
}

@ApiExtraModels(ForexQuoteResponse, ForexLrsResponse)
export class ForexFileResponse extends ForexFileSummary {
  @ApiProperty() purpose: string;
  @ApiProperty({ type: ForexPartnerRef }) partner: ForexPartnerRef;
  @ApiProperty() person_id: string;
  @ApiProperty({ type: String, nullable: true }) beneficiary_name: string | null;
  @ApiProperty({ type: String, nullable: true }) company_name: string | null;
  @ApiProperty({ type: String, nullable: true }) departure_date: string | null;
  @ApiProperty({ type: String, nullable: true }) return_date: string | null;
  @ApiProperty() education_loan_funded: boolean;
  @ApiProperty({ type: String, nullable: true }) notes: string | null;
  @ApiProperty({ type: ForexChecklist }) checklist: ForexChecklist;
  @ApiProperty({ type: [ForexDocumentResponse], description: 'Metadata only' })
  documents: ForexDocumentResponse[];
  @ApiProperty(nullableRef(ForexQuoteResponse)) quote: ForexQuoteResponse | null;
  @ApiProperty(nullableRef(ForexLrsResponse, 'LRS kinds, once quoted'))
  lrs: ForexLrsResponse | null;
  @ApiProperty({ type: ForexDeclarationResponse }) declaration: ForexDeclarationResponse;
  @ApiProperty({ type: [ForexDealerNote] }) dealer_notes: ForexDealerNote[];
  @ApiProperty({ type: String, nullable: true }) deal_reference: string | null;
  @ApiProperty({ type: String, nullable: true }) booked_at: string | null;
  @ApiProperty({ description: 'Signed hash-chained receipt: GET …/orders/{id}/receipt' })
  receipt_id: string;
}

export class ForexFileListResponse {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [ForexFileSummary] }) data: ForexFileSummary[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class ForexReceiptEntry {
  @ApiProperty() chain_id: string;
  @ApiProperty() seq: number;
  @ApiProperty() prev_hash: string;
  @ApiProperty() hash: string;
  @ApiProperty() created_at: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'type: forex.file_created | forex.quoted | forex.document_added | forex.submitted | forex.declared | forex.booked | forex.returned | forex.rejected | forex.expired',
  })
  payload: Record<string, unknown>;
  @ApiProperty() kid: string;
  @ApiProperty() jws: string;
}

export class ForexReceiptVerification {
  @ApiProperty() jwks_url: string;
  @ApiProperty() hash_rule: string;
  @ApiProperty() signature: string;
}

export class ForexReceiptResponse {
  @ApiProperty({ example: 'rcp_…' }) id: string;
  @ApiProperty({ enum: ['receipt'] }) object: 'receipt';
  @ApiProperty() file_id: string;
  @ApiProperty({ type: [ForexReceiptEntry] }) entries: ForexReceiptEntry[];
  @ApiProperty({ type: ForexReceiptVerification }) verification: ForexReceiptVerification;
}

export class ForexPartnerListResponse {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [ForexPartnerResponse] }) data: ForexPartnerResponse[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}
