import { Injectable } from '@nestjs/common';
import { z } from 'zod';

import { AccountsService } from '../../accounts/accounts.service';
import { McpTool, McpToolContext } from '../mcp-tool';
import { READ_ONLY } from './tool-annotations';

const input = z.strictObject({});

const output = z.object({
  agent_id: z.string().describe('The calling agent (agt_…)'),
  name: z.string(),
  role: z.enum(['seller', 'buyer', 'both']),
  workspace_id: z.string(),
});

@Injectable()
export class WhoamiTool implements McpTool<typeof input, typeof output> {
  readonly name = 'whoami';
  readonly title = 'Who am I';
  readonly description =
    'The agent this credential belongs to: its id, name and role (seller, buyer or both).';
  readonly inputSchema = input;
  readonly outputSchema = output;
  readonly annotations = READ_ONLY;

  constructor(private readonly accounts: AccountsService) {}

  async call(
    _: z.output<typeof input>,
    { caller }: McpToolContext,
  ): Promise<z.output<typeof output>> {
    const agent = await this.accounts.getAgent(caller.workspaceId, caller.id);
    return {
      agent_id: agent.id,
      name: agent.name,
      role: agent.role,
      workspace_id: agent.workspaceId,
    };
  }
}
