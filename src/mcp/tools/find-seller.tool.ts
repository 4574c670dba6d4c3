import { Injectable } from '@nestjs/common';
import { z } from 'zod';

import { CATEGORY_PATTERN } from '../../seller/dto/put-listing.dto';
import { SellerService } from '../../seller/seller.service';
import { McpTool } from '../mcp-tool';
import { READ_ONLY } from './tool-annotations';

export const FIND_SELLER_MAX_LIMIT = 50;

const input = z.strictObject({
  category: z
    .string()
    .max(100)
    .regex(CATEGORY_PATTERN, { error: 'must be a dotted lowercase category such as food.tea' })
    .optional()
    .describe(
      "Dotted lowercase category, e.g. 'food' or 'food.tea'. Matches that category and its sub-categories ('food' matches 'food.tea').",
    ),
  query: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      'Free text, case-insensitive, found in seller names, offer names or SKUs (e.g. "assam").',
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(FIND_SELLER_MAX_LIMIT)
    .default(10)
    .describe(`Sellers per page, 1–${FIND_SELLER_MAX_LIMIT} (default 10).`),
  starting_after: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'The next_cursor of a previous find_seller call with the same filters, to get the next page.',
    ),
});

const offer = z.object({
  sku: z.string().describe('Offer id within the seller; ask a quote for it with this SKU'),
  name: z.string(),
  unit_paise: z.number().int().describe('Price per unit in paise (INR × 100)'),
  category: z.string(),
});

const output = z.object({
  sellers: z.array(
    z.object({
      agent_id: z.string().describe('The seller agent (agt_…)'),
      name: z.string(),
      offers: z.array(offer).describe('Active offers matching the filters, by SKU'),
    }),
  ),
  has_more: z.boolean(),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass as starting_after for the next page; null on the last page'),
});

/** The seller directory (same data as GET /v1/pay/sellers): listed sellers, newest first. */
@Injectable()
export class FindSellerTool implements McpTool<typeof input, typeof output> {
  readonly name = 'find_seller';
  readonly title = 'Find a seller';
  readonly description =
    'Search the directory of listed sellers and their active offers (prices in paise, INR). ' +
    'Filter by category (sub-categories included) and/or free text; results are paged with next_cursor.';
  readonly inputSchema = input;
  readonly outputSchema = output;
  readonly annotations = READ_ONLY;

  constructor(private readonly listings: SellerService) {}

  async call(args: z.output<typeof input>): Promise<z.output<typeof output>> {
    const page = await this.listings.searchSellers({
      category: args.category,
      q: args.query,
      limit: args.limit,
      startingAfter: args.starting_after,
    });
    // Field by field: the output schema is closed (see McpTool).
    return {
      sellers: page.data.map((s) => ({
        agent_id: s.agent_id,
        name: s.name,
        offers: s.offers.map((o) => ({
          sku: o.sku,
          name: o.name,
          unit_paise: o.unit_paise,
          category: o.category,
        })),
      })),
      has_more: page.has_more,
      next_cursor: page.next_cursor,
    };
  }
}
