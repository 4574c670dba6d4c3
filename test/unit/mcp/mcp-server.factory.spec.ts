import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Logger } from '@nestjs/common';
import { z } from 'zod';

import { AppError } from '../../../src/common/errors/app-error';
import { McpServerFactory } from '../../../src/mcp/mcp-server.factory';
import { McpTool, McpToolContext, McpToolError } from '../../../src/mcp/mcp-tool';

const input = z.strictObject({
  mode: z.enum(['ok', 'tool_error', 'app_error', 'server_error', 'crash']),
});
const output = z.object({ ok: z.boolean() });

/** A tool that fails in every way a real one can. */
const probe: McpTool<typeof input, typeof output> = {
  name: 'probe',
  title: 'Probe',
  description: 'test',
  inputSchema: input,
  outputSchema: output,
  call: ({ mode }) => {
    switch (mode) {
      case 'ok':
        return Promise.resolve({ ok: true });
      case 'tool_error':
        return Promise.reject(new McpToolError('nope', 'cannot do that', 'mode'));
      case 'app_error':
        return Promise.reject(
          new AppError(400, 'invalid_request', 'invalid', 'bad cursor', '$.query.starting_after'),
        );
      case 'server_error':
        return Promise.reject(
          new AppError(503, 'service_unavailable', 'service_unavailable', 'Redis is down'),
        );
      case 'crash':
        return Promise.reject(new Error('relation "secret_table" does not exist'));
    }
  },
};

describe(McpServerFactory.name, () => {
  const ctx: McpToolContext = {
    caller: { kind: 'agent', id: 'agt_1', workspaceId: 'ws_1', role: 'seller', publicKey: null },
    requestId: 'req_test',
  };
  let client: Client;
  let logged: jest.SpyInstance;

  beforeEach(async () => {
    logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const server = new McpServerFactory([probe]).create(ctx);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'unit', version: '1' });
    await client.connect(clientSide);
  });

  afterEach(async () => {
    await client.close();
    jest.restoreAllMocks();
  });

  const run = async (mode: string) =>
    (await client.callTool({ name: 'probe', arguments: { mode } })) as CallToolResult;
  const text = (r: CallToolResult) => (r.content[0]?.type === 'text' ? r.content[0].text : '');

  it('returns the result as structuredContent and as JSON text', async () => {
    const r = await run('ok');
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ ok: true });
    expect(JSON.parse(text(r))).toEqual({ ok: true });
  });

  it('turns an McpToolError into an isError result naming the field, without structuredContent', async () => {
    const r = await run('tool_error');
    expect(r).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'mode: cannot do that (code: nope)' }],
    });
  });

  it('names the argument of an AppError by the last part of its JSONPath', async () => {
    expect(text(await run('app_error'))).toBe('starting_after: bad cursor (code: invalid)');
  });

  it('hides the message of an unexpected error or a 5xx AppError and logs it', async () => {
    const crash = await run('crash');
    expect(crash.isError).toBe(true);
    expect(text(crash)).toBe(
      'unexpected error, logged under request req_test (code: internal_error)',
    );
    expect(text(await run('server_error'))).toBe(
      'unexpected error, logged under request req_test (code: service_unavailable)',
    );
    expect(logged).toHaveBeenCalledTimes(2);
  });
});
