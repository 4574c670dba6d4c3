import { Injectable } from '@nestjs/common';
import { z } from 'zod';

import { ForexService } from '../../forex/forex.service';
import { PRODUCTS } from '../../forex/forex-rules';
import { McpIdempotency } from '../mcp-idempotency';
import { McpTool, McpToolContext } from '../mcp-tool';
import { forexRestTwin } from './forex-rest-twin';
import {
  CURRENCY,
  FILE_ID,
  FOREIGN_AMOUNT,
  forexToolError,
  IDEMPOTENCY_KEY,
  QUOTE,
  quoteView,
} from './forex-tool-schemas';
import { WRITES } from './tool-annotations';

const input = z.strictObject({
  file_id: FILE_ID,
  lines: z
    .array(
      z.strictObject({
        currency: CURRENCY,
        amount: FOREIGN_AMOUNT,
        product: z
          .enum(PRODUCTS, { error: `must be one of ${PRODUCTS.join(', ')}` })
          .describe('notes and card for trips and buy-backs; remittance for LRS remittances'),
      }),
    )
    .min(1)
    .max(10)
    .describe('1–10 lines, each a currency, a foreign amount and a product'),
  idempotency_key: IDEMPOTENCY_KEY,
});

const output = QUOTE.extend({
  replayed: z
    .boolean()
    .describe('True when an earlier call with this idempotency_key made the quote'),
  next_step: z.string(),
});

type Output = z.output<typeof output>;

/** Same use case as POST /v1/pay/forex/quotes (records shared with it through the key). */
@Injectable()
export class ForexQuoteTool implements McpTool<typeof input, typeof output> {
  readonly name = 'forex_quote';
  readonly title = 'Quote a forex file';
  readonly description =
    "Price a forex file at its partner's current rates and lock them for 15 minutes: each line's rupees (amount × rate, rounded half up to the paisa), the partner's fee, TCS and the total, in paise. A new quote replaces the file's current one. idempotency_key is required: a retry with the same key and arguments returns the same quote.";
  readonly inputSchema = input;
  readonly outputSchema = output;
  readonly annotations = { ...WRITES, idempotentHint: true };

  constructor(
    private readonly forex: ForexService,
    private readonly idempotency: McpIdempotency,
  ) {}

  async call(args: z.output<typeof input>, ctx: McpToolContext): Promise<Output> {
    const body = { file_id: args.file_id, lines: args.lines };
    try {
      const { value, replayed } = await this.idempotency.run(
        ctx,
        args.idempotency_key,
        forexRestTwin('/v1/pay/forex/quotes', body, 'quote'),
        () => this.forex.quote(ctx.caller, { fileId: args.file_id, lines: args.lines }),
      );
      return {
        ...quoteView(value),
        replayed,
        next_step: `Rates locked until ${value.rate_locked_until}. Upload what the checklist asks for (upload_document, file_status) and call submit_file before then.`,
      };
    } catch (err) {
      throw forexToolError(err);
    }
  }
}
