import { Injectable } from '@nestjs/common';
import { z } from 'zod';

import { findAadhaar } from '../../forex/aadhaar';
import { forexErrors } from '../../forex/forex.errors';
import { ForexService } from '../../forex/forex.service';
import { FILE_KINDS, PURPOSE_CODES } from '../../forex/forex-rules';
import { PanVault } from '../../forex/pan-vault';
import { McpIdempotency } from '../mcp-idempotency';
import { McpTool, McpToolContext } from '../mcp-tool';
import { forexRestTwin } from './forex-rest-twin';
import { FILE, fileView, forexToolError, IDEMPOTENCY_KEY } from './forex-tool-schemas';
import { WRITES } from './tool-annotations';

const PURPOSES = Object.keys(PURPOSE_CODES) as [string, ...string[]];
const DATE = z
  .string()
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/, { error: 'must be a date, YYYY-MM-DD' });

const input = z.strictObject({
  partner_id: z
    .string()
    .regex(/^fxp_[A-Za-z0-9]{1,64}$/, { error: 'must be a forex partner id (fxp_…)' })
    .describe('The AD Category-II partner (get_forex_rates lists them)'),
  kind: z
    .enum(FILE_KINDS, { error: `must be one of ${FILE_KINDS.join(', ')}` })
    .describe('travel, remittance (LRS), buy_back of unspent currency, or corporate_travel'),
  purpose_code: z
    .enum(PURPOSES, { error: `must be one of ${PURPOSES.join(', ')}` })
    .describe(
      "RBI purpose code, allowed per kind: travel S0301/S0303/S0304/S0305/S0306; remittance S0304/S0305/S1301/S1302; buy_back the trip's travel code; corporate_travel S0301",
    ),
  person_email: z
    .email({ error: 'must be an email address' })
    .max(320)
    .describe(
      'Email of the person the file is for, in your workspace: they confirm the declaration in the app',
    ),
  traveller_name: z.string().min(1).max(200).describe('Traveller or remitter, as on the passport'),
  beneficiary_name: z.string().min(1).max(200).optional().describe('Remittance: who receives it'),
  company_name: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('corporate_travel: the company paying (required there)'),
  destination_country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, { error: 'must be an ISO 3166-1 alpha-2 country code such as AE' })
    .describe('ISO 3166-1 alpha-2, outside India (beneficiary country for a remittance)'),
  departure_date: DATE.optional().describe(
    'YYYY-MM-DD; required for travel and corporate_travel, at most 60 days ahead (IST)',
  ),
  return_date: DATE.optional().describe('YYYY-MM-DD, on or after departure_date'),
  pan: z
    .string()
    .max(20)
    .regex(/^\s*[A-Za-z]{5}[0-9]{4}[A-Za-z]\s*$/, {
      error: 'must be a PAN: five letters, four digits, one letter (the value is not echoed)',
    })
    .describe(
      "PAN: an individual's (4th letter P) for travel, remittance and buy_back; the company's for corporate_travel. Kept only as a keyed hash and XXXXX1234X; never returned.",
    ),
  education_loan_funded: z
    .boolean()
    .optional()
    .describe('S0305 only: education funded by a loan from a financial institution (TCS nil)'),
  notes: z.string().min(1).max(1000).optional().describe('Free text for the dealer'),
  idempotency_key: IDEMPOTENCY_KEY,
});

const output = FILE.extend({
  replayed: z.boolean().describe('True when an earlier call with this idempotency_key opened it'),
  next_step: z.string(),
});

type Input = z.output<typeof input>;
type Output = z.output<typeof output>;

/**
 * Opens a forex file (POST /v1/pay/forex/orders), so the whole flow works through MCP alone. As
 * on REST (PanDigestGuard), an Aadhaar number anywhere in the arguments is refused first, then
 * the raw PAN is replaced by its keyed digest (PanVault) before anything else sees it: the
 * idempotency request hash is computed over the REST body with `pan` = `hmac:<version>:<hash>`
 * (the same body REST hashes, so records are shared), and the service gets the digest.
 */
@Injectable()
export class ForexCreateFileTool implements McpTool<typeof input, typeof output> {
  readonly name = 'create_forex_file';
  readonly title = 'Open a forex file';
  readonly description =
    'Buyer agent: open a forex file (fxo_…, status draft) with an AD Category-II partner for one of your people: kind, purpose code, traveller, destination, dates, PAN (kept only as a keyed hash and XXXXX1234X). Aadhaar is never collected. Then forex_quote, upload_document, submit_file. idempotency_key is required.';
  readonly inputSchema = input;
  readonly outputSchema = output;
  readonly annotations = { ...WRITES, idempotentHint: true };

  constructor(
    private readonly forex: ForexService,
    private readonly pans: PanVault,
    private readonly idempotency: McpIdempotency,
  ) {}

  async call(args: Input, ctx: McpToolContext): Promise<Output> {
    const { idempotency_key: key, pan: rawPan, ...rest } = args;
    try {
      const hit = findAadhaar(rest);
      if (hit) {
        throw forexErrors.aadhaarRefused(hit);
      }
      const pan = this.pans.digestAnyHolder(rawPan);
      const { value, replayed } = await this.idempotency.run(
        ctx,
        key,
        forexRestTwin(
          '/v1/pay/forex/orders',
          { ...rest, pan: `hmac:${pan.keyVersion}:${pan.hash}` },
          'create',
        ),
        () =>
          this.forex.createFile(ctx.caller, {
            partnerId: rest.partner_id,
            kind: rest.kind,
            purposeCode: rest.purpose_code,
            personEmail: rest.person_email,
            travellerName: rest.traveller_name,
            beneficiaryName: rest.beneficiary_name,
            companyName: rest.company_name,
            destinationCountry: rest.destination_country,
            departureDate: rest.departure_date,
            returnDate: rest.return_date,
            pan,
            educationLoanFunded: rest.education_loan_funded,
            notes: rest.notes,
          }),
      );
      return {
        ...fileView(value),
        replayed,
        next_step:
          'Quote it (forex_quote), upload what checklist.missing names (upload_document), then submit_file within the 15-minute rate lock.',
      };
    } catch (err) {
      throw forexToolError(err);
    }
  }
}
