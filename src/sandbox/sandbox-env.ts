import type { SandboxKeep, SandboxResult } from './sandbox.service';

/**
 * The sandbox as a shell env file (`npm run sandbox -- --env-file .env.sandbox`, then
 * `source .env.sandbox`): one `export NAME='value'` line per variable the guides use
 * (docs/try-it.md). Values are single-quoted, so nothing in them is expanded by the shell.
 */
export function sandboxEnv(r: SandboxResult): [name: string, value: string, note: string][] {
  const [small, large] = [...r.offers].sort((a, b) => a.unit_paise - b.unit_paise);
  return [
    ['BASE', r.base_url, 'the service (API)'],
    ['APP_URL', r.app_url, "the person's app (pages)"],
    ['WORKSPACE', r.workspace_id, 'the demo workspace'],
    ['API_KEY', r.api_key, 'workspace API key, the workspace owner (/v1)'],
    ['PERSON', r.person.email, "the person's sign-in at $APP_URL/login"],
    ['PERSON_PW', r.person.password, "the person's password"],
    ['SELLER', r.seller.agent_id, 'seller agent id'],
    [
      'SELLER_AGENT_CREDENTIAL',
      r.seller.credential,
      "the seller agent's credential (/v1/pay seller routes, /mcp)",
    ],
    ['BUYER', r.buyer.agent_id, 'buyer agent id'],
    [
      'BUYER_AGENT_CREDENTIAL',
      r.buyer.credential,
      "the buyer agent's credential (/v1/pay buyer routes, /mcp)",
    ],
    [
      'MERCHANT_PROTOCOL_KEY',
      r.merchant_protocol_key,
      "the seller's protocol key for agent platforms (/acp checkout, /ucp)",
    ],
    [
      'BUYER_PROTOCOL_KEY',
      r.buyer_protocol_key,
      "the buyer's protocol key (/acp delegate_payment, receipts)",
    ],
    ['MANDATE', r.mandate_id, "the buyer's active mandate (any seller)"],
    ['OFFER_SMALL', small.sku, `${small.name}, settles at once (at or below ₹2,000)`],
    ['OFFER_SMALL_PAISE', String(small.unit_paise), 'its price in paise'],
    ['OFFER_LARGE', large.sku, `${large.name}, asks the person (above ₹2,000)`],
    ['OFFER_LARGE_PAISE', String(large.unit_paise), 'its price in paise'],
    ['FXP', r.forex.partner_id, `forex partner: ${r.forex.partner_name}`],
    ['DEALER', r.forex.dealer.email, "the forex dealer's sign-in ($APP_URL/forex/desk)"],
    ['DEALER_PW', r.forex.dealer.password, "the dealer's password"],
    ['OPERATOR', r.operator.email, "the operator's sign-in ($APP_URL/ops/queues)"],
    ['OPERATOR_PW', r.operator.password, "the operator's password"],
    ...(r.webhook
      ? ([
          ['WEBHOOK_ID', r.webhook.endpoint_id, 'sandbox webhook endpoint'],
          ['WEBHOOK_URL', r.webhook.url, 'where it delivers'],
          ['WEBHOOK_SECRET', r.webhook.secret, 'its signing secret'],
        ] as [string, string, string][])
      : []),
  ];
}

/**
 * The names the env file used before credentials were named by role (docs/credentials.md "Old
 * names"): written too, with the same values, for one release; then removed.
 */
export const OLD_NAMES: Readonly<Record<string, string>> = {
  SELLER_AGENT_CREDENTIAL: 'SELLER_CRED',
  BUYER_AGENT_CREDENTIAL: 'BUYER_CRED',
  MERCHANT_PROTOCOL_KEY: 'MK',
  BUYER_PROTOCOL_KEY: 'BK',
};

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function formatEnvFile(r: SandboxResult): string {
  return [
    '# Written by `npm run sandbox -- --env-file <file>`. Secrets: keep this file to yourself (mode 0600, git-ignored).',
    '# Running it again keeps what still works; add --rotate for fresh secrets. Use: source <file>',
    ...sandboxEnv(r).map(([name, value, note]) => `export ${name}=${shellQuote(value)}  # ${note}`),
    '# Old names of the same credentials, kept for one release (docs/credentials.md "Old names").',
    ...sandboxEnv(r)
      .filter(([name]) => OLD_NAMES[name])
      .map(([name, value]) => `export ${OLD_NAMES[name]}=${shellQuote(value)}  # = $${name}`),
    '',
  ].join('\n');
}

/** Reads back what formatEnvFile wrote (and plain NAME=value lines); other lines are skipped. */
export function parseEnvFile(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=((?:'[^']*'|\\'|[^\s'#])*)/.exec(line);
    if (!m) {
      continue;
    }
    vars[m[1]] = m[2].replace(
      /'([^']*)'|\\(')|([^'\\]+)/g,
      (_, q?: string, e?: string, p?: string) => q ?? e ?? p ?? '',
    );
  }
  return vars;
}

/** The secrets of an earlier env file, for SandboxOptions.keep (a file with only the old names too). */
export function keepFromEnv(vars: Record<string, string>): SandboxKeep {
  const named = (name: string): string | undefined => vars[name] ?? vars[OLD_NAMES[name]];
  return {
    api_key: vars.API_KEY,
    person_password: vars.PERSON_PW,
    seller_credential: named('SELLER_AGENT_CREDENTIAL'),
    buyer_credential: named('BUYER_AGENT_CREDENTIAL'),
    merchant_protocol_key: named('MERCHANT_PROTOCOL_KEY'),
    buyer_protocol_key: named('BUYER_PROTOCOL_KEY'),
    dealer_password: vars.DEALER_PW,
    operator_password: vars.OPERATOR_PW,
  };
}
