// `npm run sandbox [-- --json] [--webhook-url URL]`: creates or reuses the demo workspace and prints fresh credentials.
// With --json, stdout carries exactly one JSON object (SandboxResult) and nothing else.
import 'reflect-metadata';

import { NestFactory } from '@nestjs/core';

import { AppModule } from '../app.module';
import { formatRupees } from '../common/money';
import { ConfigError, loadConfig, preferNoWorkers } from '../config/app.config';
import { migrate } from '../database/migrate';
import { preflight } from '../database/preflight';
import { SandboxResult, SandboxService } from '../sandbox/sandbox.service';

/**
 * Everything that is not the result (boot logs, warnings, libraries printing) goes to stderr
 * while the app runs, so scripts can pipe `--json` straight into a JSON parser.
 */
function holdStdout(): (text: string) => void {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr);
  return (text: string) => {
    process.stdout.write = write;
    write(text);
  };
}

function forHumans(r: SandboxResult): string {
  return [
    `Sandbox ready: workspace ${r.workspace_id}`,
    '',
    `  Service        ${r.base_url}`,
    `  App            ${r.app_url}`,
    `  Sign in as     ${r.person.email}`,
    `  Password       ${r.person.password}`,
    `  API key        ${r.api_key}`,
    `  Seller agent   ${r.seller.agent_id}  credential ${r.seller.credential}`,
    `  Buyer agent    ${r.buyer.agent_id}  credential ${r.buyer.credential}`,
    `  Merchant key   ${r.merchant_protocol_key}   (role merchant, for /acp checkout)`,
    `  Buyer key      ${r.buyer_protocol_key}   (role buyer, for delegate_payment)`,
    `  Mandate        ${r.mandate_id}   (active, any seller)`,
    ...r.offers.map((o) => `  Offer          ${o.sku}  ${o.name}  ${formatRupees(o.unit_paise)}`),
    `  Forex partner  ${r.forex.partner_id}  ${r.forex.partner_name}, licence ${r.forex.licence_number}`,
    `  Dealer desk    ${r.app_url}/forex/desk  sign in as ${r.forex.dealer.email}  password ${r.forex.dealer.password}`,
    ...(r.webhook
      ? [
          `  Webhook        ${r.webhook.url}  endpoint ${r.webhook.endpoint_id}  secret ${r.webhook.secret}`,
        ]
      : []),
    `  Operator       ${r.operator.email}  password ${r.operator.password}`,
    `                 queue dashboard: sign in at ${r.operator.sign_in_url}`,
    '',
    'These secrets are shown once. Run `npm run sandbox` again for fresh ones; the previous ones stop working.',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const at = process.argv.indexOf('--webhook-url');
  const webhookUrl = at >= 0 ? process.argv[at + 1] : undefined;
  const print = holdStdout();
  preferNoWorkers();
  const config = loadConfig();
  await preflight(config);
  await migrate(config.databaseUrl);
  const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'fatal'] });
  let result: SandboxResult;
  try {
    result = await app.get(SandboxService).bootstrap({ webhookUrl });
  } finally {
    await app.close();
  }
  print(json ? `${JSON.stringify(result)}\n` : forHumans(result));
}

main().catch((err: unknown) => {
  const known = err instanceof ConfigError || (err as { preflight?: boolean }).preflight;
  process.stderr.write(
    known
      ? `${(err as Error).message}\n`
      : `sandbox failed: ${(err as Error).stack ?? String(err)}\n`,
  );
  process.exitCode = 1;
});
