import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import type { Middleware } from 'openapi-fetch';
import request from 'supertest';
import ts from 'typescript';

import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { expectContractResponse } from '../support/contract-validator';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The contract generates a working typed client: openapi-typescript turns openapi/openapi.json into
 * .tmp/typed-client/openapi.ts (git-ignored), the TypeScript compiler checks
 * test/typed-client/flow.ts against it, and the same flow (openapi-fetch) then runs against the real
 * app, every response checked against the contract's schema for its operation and status.
 */
const ROOT = resolve(__dirname, '..', '..');
const OUT_DIR = join(ROOT, '.tmp', 'typed-client');
const FLOW_DIR = join(ROOT, 'test', 'typed-client');

/** What flow.ts exports, typed loosely here: the root tsconfig cannot see the generated file. */
interface FlowModule {
  runFlow: (input: {
    baseUrl: string;
    merchantKey: string;
    buyerKey: string;
    sellerCredential: string;
    sellerAgentId: string;
    mandateId: string;
    sku: string;
    middleware: Middleware;
    idempotencyKey: () => string;
  }) => Promise<{
    session: { status: string; order?: { id: string } };
    receipt: { id: string; intent_id: string };
    refund: { id: string; intent_id: string };
  }>;
}

/**
 * openapi-typescript's programmatic API, in a child Node process: the package's CommonJS build
 * loads ES-module-only dependencies, which jest's module loader cannot require.
 */
const GENERATE = `
import { mkdirSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
const [source, outDir, outFile] = process.argv.slice(1);
// A default is what the server assumes when a field is omitted: keep such fields optional.
const ast = await openapiTS(pathToFileURL(source), { defaultNonNullable: false });
mkdirSync(outDir, { recursive: true });
writeFileSync(outFile, astToString(ast));
`;

async function generateTypes(): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      GENERATE,
      join(ROOT, 'openapi', 'openapi.json'),
      OUT_DIR,
      join(OUT_DIR, 'openapi.ts'),
    ],
    { cwd: ROOT },
  );
}

function typeCheckFlow(): string[] {
  const configPath = join(FLOW_DIR, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  if (read.error) {
    return [ts.flattenDiagnosticMessageText(read.error.messageText, '\n')];
  }
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, FLOW_DIR);
  if (!parsed.fileNames.includes(join(FLOW_DIR, 'flow.ts'))) {
    return [`${configPath} does not include flow.ts`];
  }
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) {
      return text;
    }
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName}:${line + 1}:${character + 1} ${text}`;
  });
}

describe('typed client generated from openapi/openapi.json', () => {
  let t: TestApp;
  let seller: SeededWorkspace;
  let buyer: SeededWorkspace;

  beforeAll(async () => {
    await generateTypes();
    t = await startApp();
    seller = await seedWorkspace(t);
    buyer = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${seller.seller.id}/listing`)
      .set('Authorization', `Bearer ${seller.seller.credential}`)
      .send({
        listed: true,
        offers: [
          { sku: 'sku_tea_1kg', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
        ],
      })
      .expect(200);
  }, 60_000);
  afterAll(() => t?.close());

  it('type-checks the client flow (test/typed-client/flow.ts) against the generated types', () => {
    expect(typeCheckFlow()).toEqual([]);
  }, 60_000);

  it('runs create → update → delegate_payment → complete → get → receipt → refund, every response as the contract says', async () => {
    const mandateId = await createMandate(t, {
      workspaceId: buyer.workspaceId,
      agentId: buyer.buyer.id,
    });
    const seen: string[] = [];
    const middleware: Middleware = {
      async onResponse({ request: req, response, schemaPath }) {
        const body: unknown = await response.clone().json();
        expectContractResponse(schemaPath, req.method, response.status, body);
        seen.push(`${req.method} ${schemaPath} ${response.status}`);
        return undefined;
      },
    };
    // A variable specifier: TypeScript (root tsconfig) does not follow it into the generated types.
    const flowPath = join(FLOW_DIR, 'flow');
    const { runFlow } = (await import(flowPath)) as FlowModule;

    const result = await runFlow({
      baseUrl: t.url,
      merchantKey: seller.merchantKey,
      buyerKey: buyer.buyerKey,
      sellerCredential: seller.seller.credential,
      sellerAgentId: seller.seller.id,
      mandateId,
      sku: 'sku_tea_1kg',
      middleware,
      idempotencyKey: () => randomUUID(),
    });

    expect(seen).toEqual([
      'POST /acp/checkout_sessions 201',
      'POST /acp/checkout_sessions/{checkout_session_id} 200',
      'POST /acp/agentic_commerce/delegate_payment 201',
      'POST /acp/checkout_sessions/{checkout_session_id}/complete 200',
      'GET /acp/checkout_sessions/{checkout_session_id} 200',
      'GET /acp/receipts/{receipt_id} 200',
      'POST /v1/pay/intents/{id}/refunds 201',
    ]);
    expect(result.session.status).toBe('completed');
    expect(result.refund.intent_id).toBe(result.receipt.intent_id);
  });
});
