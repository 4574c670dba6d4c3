import { Injectable } from '@nestjs/common';
import { z } from 'zod';

import { ForexService } from '../../forex/forex.service';
import { McpTool, McpToolContext } from '../mcp-tool';
import { FILE, FILE_ID, fileView, forexToolError } from './forex-tool-schemas';
import { READ_ONLY } from './tool-annotations';

const input = z.strictObject({ file_id: FILE_ID });

const output = FILE;

/** Same data as GET /v1/pay/forex/orders/{id}. */
@Injectable()
export class ForexFileStatusTool implements McpTool<typeof input, typeof output> {
  readonly name = 'file_status';
  readonly title = 'Forex file status';
  readonly description =
    'One of your forex files: its state, checklist (what is done, missing or failing), documents (metadata only), current quote and rate lock, LRS use, declaration and dealer notes. Amounts in paise.';
  readonly inputSchema = input;
  readonly outputSchema = output;
  readonly annotations = READ_ONLY;

  constructor(private readonly forex: ForexService) {}

  async call(
    args: z.output<typeof input>,
    { caller }: McpToolContext,
  ): Promise<z.output<typeof output>> {
    try {
      return fileView(await this.forex.status(caller, args.file_id));
    } catch (err) {
      throw forexToolError(err);
    }
  }
}
