// `npm run sandbox [-- --json] [--webhook-url URL] [--env-file FILE [--rotate]]`: creates or reuses the
// demo workspace and prints its credentials. With --json, stdout carries exactly one JSON object
// (SandboxResult) and nothing else. With --env-file, the credentials are (re)written to FILE as
// `export NAME='value'` lines (mode 0600) and the secrets already in FILE that still authenticate
// are kept; --rotate issues fresh ones anyway (the previous ones stop working).
import 'reflect-metadata';

import { existsSync, readFileSync } from 'node:fs';

import { NestFactory } from '@nestjs/core';

import { AppModule } from '../app.module';
import { formatRupees } from '../common/money';
import { ConfigError, loadConfig, preferNoWorkers } from '../config/app.config';
import { migrate } from '../database/migrate';
import { preflight } from '../database/preflight';
import { SandboxKeep, SandboxResult, SandboxService } from '../sandbox/sandbox.service';
import { formatEnvFile, keepFromEnv, parseEnvFile } from '../sandbox/sandbox-env';
import { refuseUnsafeEnvTarget, writeEnvFileSafely } from './sandbox-env-file';

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

function forHumans(r: SandboxResult, envFile?: string): string {
  if (envFile) {
    return [
      `Sandbox ready: workspace ${r.workspace_id}; credentials in ${envFile} (mode 0600).`,
      '',
      `  source ${envFile}        # then follow docs/try-it.md`,
      '',
      `  App            ${r.app_url}  sign in as ${r.person.email} (password: $PERSON_PW)`,
      '',
      'Run it again to keep these credentials (only what stopped working is replaced); add --rotate for fresh ones.',
      '',
    ].join('\n');
  }
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
    `  Merchant key   ${r.merchant_protocol_key}   (MERCHANT_PROTOCOL_KEY: the agent platform, /acp checkout and /ucp)`,
    `  Buyer key      ${r.buyer_protocol_key}   (BUYER_PROTOCOL_KEY: the buyer's assistant, delegate_payment)`,
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
    'To keep them across runs instead: npm run sandbox -- --env-file .env.sandbox  (then: source .env.sandbox)',
    '',
  ].join('\n');
}

function argValue(name: string): string | undefined {
  const inline = process.argv.find((a) => a.startsWith(`${name}=`));
  if (inline) {
    return inline.slice(name.length + 1);
  }
  const at = process.argv.indexOf(name);
  if (at < 0) {
    return undefined;
  }
  const value = process.argv[at + 1];
  if (!value || value.startsWith('--')) {
    throw Object.assign(new Error(`${name} needs a value`), { preflight: true });
  }
  return value;
}

/** The secrets of an earlier env file to keep, unless --rotate or there is none yet. */
function previousSecrets(envFile: string | undefined, rotate: boolean): SandboxKeep | undefined {
  if (!envFile || rotate || !existsSync(envFile)) {
    return undefined;
  }
  return keepFromEnv(parseEnvFile(readFileSync(envFile, 'utf8')));
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const rotate = process.argv.includes('--rotate');
  const webhookUrl = argValue('--webhook-url');
  // --env-file reaches us as --write-env (src/cli/sandbox.sh: Node 20 would take it as its own).
  const envFile = argValue('--write-env') ?? argValue('--env-file');
  if (envFile) {
    // Before any work: a symbolic link at FILE is refused (src/cli/sandbox-env-file.ts).
    refuseUnsafeEnvTarget(envFile);
  }
  const keep = previousSecrets(envFile, rotate);
  const print = holdStdout();
  preferNoWorkers();
  const config = loadConfig();
  await preflight(config);
  await migrate(config.databaseUrl);
  const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'fatal'] });
  let result: SandboxResult;
  try {
    result = await app.get(SandboxService).bootstrap({ webhookUrl, keep });
  } finally {
    await app.close();
  }
  if (envFile) {
    // Beside FILE under an unpredictable name, exclusive, 0600, then renamed over it.
    writeEnvFileSafely(envFile, formatEnvFile(result));
  }
  print(json ? `${JSON.stringify(result)}\n` : forHumans(result, envFile));
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
