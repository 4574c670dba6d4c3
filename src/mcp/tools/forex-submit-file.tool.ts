import { Injectable } from '@nestjs/common';
import { z } from 'zod';

import { ForexService } from '../../forex/forex.service';
import { McpIdempotency } from '../mcp-idempotency';
import { McpTool, McpToolContext } from '../mcp-tool';
import { forexRestTwin } from './forex-rest-twin';
import { FILE, FILE_ID, fileView, forexToolError, IDEMPOTENCY_KEY } from './forex-tool-schemas';
import { WRITES } from './tool-annotations';

const input = z.strictObject({
  file_id: FILE_ID,
  idempotency_key: IDEMPOTENCY_KEY.optional(),
});

const output = FILE.extend({
  replayed: z
    .boolean()
    .describe('True when an earlier call with this idempotency_key submitted it'),
  next_step: z.string(),
});

type Output = z.output<typeof output>;

/** Same use case as POST /v1/pay/forex/orders/{id}/submit. It books nothing: people do. */
@Injectable()
export class ForexSubmitFileTool implements McpTool<typeof input, typeof output> {
  readonly name = 'submit_file';
  readonly title = 'Submit a forex file';
  readonly description =
    "Send your quoted forex file towards the partner's dealer. Refused while the checklist is incomplete (checklist_incomplete, naming what is missing) or once the 15-minute rate lock has lapsed (rate_lock_lapsed: call forex_quote again). The file then waits for its person to confirm the declaration in the app (declaration.url); only the dealer books it. Nothing is paid by this call.";
  readonly inputSchema = input;
  readonly outputSchema = output;
  readonly annotations = WRITES;

  constructor(
    private readonly forex: ForexService,
    private readonly idempotency: McpIdempotency,
  ) {}

  async call(args: z.output<typeof input>, ctx: McpToolContext): Promise<Output> {
    try {
      const { value, replayed } = await this.idempotency.run(
        ctx,
        args.idempotency_key,
        forexRestTwin(`/v1/pay/forex/orders/${args.file_id}/submit`, {}, 'submit'),
        () => this.forex.submit(ctx.caller, args.file_id),
      );
      return {
        ...fileView(value),
        replayed,
        next_step: `Waiting for the file's person to confirm the declaration at ${value.declaration.url} (by ${value.declaration.due_at ?? 'the deadline'}); then the partner's dealer books, returns or rejects it. Follow it with file_status.`,
      };
    } catch (err) {
      throw forexToolError(err);
    }
  }
}
