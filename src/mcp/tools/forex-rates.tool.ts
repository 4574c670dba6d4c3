import { Injectable } from '@nestjs/common';
import { z } from 'zod';

import type { ForexRatesResponse } from '../../forex/dto/forex-responses';
import { toPartnerResponse } from '../../forex/forex.mapper';
import { ForexService } from '../../forex/forex.service';
import { ForexPartnersService } from '../../forex/forex-partners.service';
import { McpTool, McpToolContext } from '../mcp-tool';
import { RATES } from './forex-tool-schemas';
import { READ_ONLY } from './tool-annotations';

/** Partners listed when no partner_id is given (there are a handful; has_more says if cut). */
export const FOREX_RATES_MAX_PARTNERS = 20;

const input = z.strictObject({
  partner_id: z
    .string()
    .regex(/^fxp_[A-Za-z0-9]{1,64}$/, { error: 'must be a forex partner id (fxp_…)' })
    .optional()
    .describe('One partner (fxp_…). Omit it to list every partner with its rates.'),
});

const partner = z.object({
  id: z.string().describe('The partner (fxp_…): pass it as partner_id to create_forex_file'),
  name: z.string(),
  licence_number: z.string().describe('RBI licence number'),
  category: z.literal('AD Category-II'),
  service_fee_paise: z.number().int().describe('Flat fee per quote, paise'),
  rates: RATES.shape.rates,
});

const output = z.object({
  unit: z.string().describe('What the rate numbers mean'),
  partners: z.array(partner),
  has_more: z.boolean().describe(`True when more than ${FOREX_RATES_MAX_PARTNERS} partners exist`),
});

type Output = z.output<typeof output>;

/** Partners and their rates (same data as GET /v1/pay/forex/partners and …/{id}/rates). */
@Injectable()
export class ForexRatesTool implements McpTool<typeof input, typeof output> {
  readonly name = 'get_forex_rates';
  readonly title = 'Forex partners and rates';
  readonly description =
    "The AD Category-II forex partners and their buy and sell rates per currency (notes; card and remittance), as integer ten-thousandths of a rupee per ONE unit (JPY converted from per-100). Pass partner_id for one partner; omit it to list them all. Quotes use the partner's current rates.";
  readonly inputSchema = input;
  readonly outputSchema = output;
  readonly annotations = READ_ONLY;

  constructor(
    private readonly forex: ForexService,
    private readonly partners: ForexPartnersService,
  ) {}

  async call(args: z.output<typeof input>, { caller }: McpToolContext): Promise<Output> {
    if (args.partner_id !== undefined) {
      const entity = await this.partners.get(args.partner_id, '$.partner_id');
      const rates = await this.forex.rates(caller, entity.id);
      return {
        unit: rates.unit,
        partners: [view(toPartnerResponse(entity), rates)],
        has_more: false,
      };
    }
    const page = await this.forex.listPartners(caller, { limit: FOREX_RATES_MAX_PARTNERS });
    const partners = [];
    let unit = '';
    for (const p of page.data) {
      const rates = await this.forex.rates(caller, p.id);
      unit = rates.unit;
      partners.push(view(p, rates));
    }
    return { unit: unit || RATE_UNIT, partners, has_more: page.has_more };
  }
}

const RATE_UNIT = 'integer ten-thousandths of a rupee per ONE unit (839312 = ₹83.9312)';

function view(
  p: { id: string; name: string; licence_number: string; service_fee_paise: number },
  rates: ForexRatesResponse,
): Output['partners'][number] {
  return {
    id: p.id,
    name: p.name,
    licence_number: p.licence_number,
    category: 'AD Category-II',
    service_fee_paise: p.service_fee_paise,
    rates: rates.rates.map((r) => ({
      currency: r.currency,
      minor_units: r.minor_units,
      market_quotes_per: r.market_quotes_per,
      notes: { buy: r.notes.buy, sell: r.notes.sell },
      card_remittance: { buy: r.card_remittance.buy, sell: r.card_remittance.sell },
      set_at: r.set_at,
    })),
  };
}
