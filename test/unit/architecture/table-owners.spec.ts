import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { tsFilesUnder } from '../../support/source-files';

/**
 * One owner per table (docs/architecture.md "Table owners"): a table's SQL lives in one file, and
 * every other file reaches the table through that owner's exported methods or SQL parts. This scans
 * src/ (migrations and entity files aside) for SQL that names a table (`FROM`, `JOIN`, `INTO`,
 * `UPDATE`, `TABLE`, a query builder's `innerJoin('table'…)`) and for TypeORM calls on its entity
 * class, and fails when a file other than the owner touches a table (EXCEPTIONS, empty today, is
 * for a move in progress). Pure file-system checks.
 */

const ROOT = join(__dirname, '..', '..', '..');

const OWNERS: Record<string, string> = {
  agents: 'src/accounts/agent.repository.ts',
  breach_notices: 'src/breaches/breach-register.repository.ts',
  api_keys: 'src/accounts/accounts.repository.ts',
  approvals: 'src/approvals/approval.repository.ts',
  audit_events: 'src/common/audit.repository.ts',
  buyer_daily_spend: 'src/payments/payment-intent.repository.ts',
  chain_entries: 'src/chains/chain.repository.ts',
  chains: 'src/chains/chain.repository.ts',
  checkout_sessions: 'src/checkout/checkout-session.repository.ts',
  consent_records: 'src/personal-data/personal-data.repository.ts',
  delegated_tokens: 'src/delegate-payment/delegated-token.repository.ts',
  forex_documents: 'src/forex/forex-file.repository.ts',
  forex_files: 'src/forex/forex-file.repository.ts',
  forex_partners: 'src/forex/forex-partner.repository.ts',
  forex_quotes: 'src/forex/forex-file.repository.ts',
  forex_rates: 'src/forex/forex-partner.repository.ts',
  gateway_capture_refunds: 'src/gateway/capture-refund.repository.ts',
  gateway_events: 'src/rails/gateway/gateway.repository.ts',
  gateway_mandate_tokens: 'src/rails/gateway/gateway.repository.ts',
  gateway_orders: 'src/rails/gateway/gateway.repository.ts',
  gateway_reserve_blocks: 'src/rails/gateway/gateway.repository.ts',
  gateway_settlements: 'src/settlements/settlement.repository.ts',
  hosted_checkouts: 'src/public-pay/hosted-checkout.repository.ts',
  idempotency_records: 'src/common/idempotency/idempotency-record.repository.ts',
  mandate_amendments: 'src/mandates/mandate-amendment.repository.ts',
  mandates: 'src/mandates/mandate.repository.ts',
  mcp_refund_requests: 'src/mcp/mcp-refund-request.repository.ts',
  offers: 'src/seller/seller.repository.ts',
  outbox_events: 'src/outbox/outbox.repository.ts',
  outbox_pending: 'src/outbox/outbox.repository.ts',
  payment_intents: 'src/payments/payment-intent.repository.ts',
  personal_data_breaches: 'src/breaches/breach-register.repository.ts',
  person_sessions: 'src/web/person-session.repository.ts',
  persons: 'src/accounts/accounts.repository.ts',
  personal_data_erasures: 'src/personal-data/personal-data.repository.ts',
  personal_data_old_identifiers: 'src/personal-data/personal-data.repository.ts',
  protocol_keys: 'src/protocol-keys/protocol-key.repository.ts',
  quotes: 'src/quotes/quote.repository.ts',
  rail_status_checks: 'src/payments/rail-status-check.repository.ts',
  rail_transfers: 'src/payments/rail-transfer.repository.ts',
  recurring_charges: 'src/recurring/recurring-charge.repository.ts',
  refunds: 'src/refunds/refund.repository.ts',
  seen_signatures: 'src/common/signing/seen-signature.repository.ts',
  seller_listings: 'src/seller/seller.repository.ts',
  settlement_lines: 'src/settlements/settlement.repository.ts',
  signature_nonces: 'src/common/signing/http-message-signatures/postgres-nonce-store.ts',
  signing_keys: 'src/chains/signing-key.repository.ts',
  stored_documents: 'src/documents/stored-document.repository.ts',
  ucp_order_webhooks: 'src/ucp/orders/ucp-order.repository.ts',
  ucp_signing_keys: 'src/ucp/orders/ucp-order.repository.ts',
  webhook_attempts: 'src/webhooks/webhook-delivery.repository.ts',
  webhook_deliveries: 'src/webhooks/webhook-delivery.repository.ts',
  webhook_endpoints: 'src/webhooks/webhook-endpoint.repository.ts',
  workspaces: 'src/accounts/accounts.repository.ts',
};

/**
 * Files allowed to touch a table they do not own, with the reason: none today. An entry is for a
 * move in progress only, and must stay true (the last check fails once it is not needed).
 */
const EXCEPTIONS: Record<string, Record<string, string>> = {};

const rel = (f: string) => relative(ROOT, f).split('\\').join('/');
const migrationFiles = tsFilesUnder(join(ROOT, 'src', 'database', 'migrations'));
const sourceFiles = tsFilesUnder(join(ROOT, 'src')).filter(
  (f) => !rel(f).startsWith('src/database/migrations/') && !f.endsWith('.entity.ts'),
);

/** Tables the migrations create. */
const TABLES = [
  ...new Set(
    migrationFiles.flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"?([a-z_]+)/g)].map(
        (m) => m[1],
      ),
    ),
  ),
].sort();

/** Entity class → table, from `@Entity('table') export class Name`. */
const ENTITIES = new Map(
  tsFilesUnder(join(ROOT, 'src'))
    .filter((f) => f.endsWith('.entity.ts'))
    .flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/@Entity\('([a-z_]+)'\)\s*export class (\w+)/g)].map(
        (m) => [m[2], m[1]] as const,
      ),
    ),
);

/** The tables a source text touches: SQL naming them, or TypeORM calls on their entities. */
function tablesTouched(text: string): Set<string> {
  const touched = new Set<string>();
  for (const table of TABLES) {
    const sql = new RegExp(`\\b(FROM|JOIN|INTO|UPDATE|TABLE)\\s+"?${table}\\b`);
    const builder = new RegExp(`\\b(innerJoin|leftJoin)\\w*\\(\\s*['"]${table}['"]`);
    if (sql.test(text) || builder.test(text)) {
      touched.add(table);
    }
  }
  for (const [entity, table] of ENTITIES) {
    const call = new RegExp(
      `\\b(find\\w*|insert|update|delete|save|count\\w*|exists\\w*|createQueryBuilder|getRepository|upsert|increment|decrement|sum|innerJoin\\w*|leftJoin\\w*|from)\\(\\s*${entity}\\b`,
    );
    if (call.test(text)) {
      touched.add(table);
    }
  }
  return touched;
}

const USES = new Map<string, Set<string>>();
for (const f of sourceFiles) {
  for (const table of tablesTouched(readFileSync(f, 'utf8'))) {
    USES.set(table, (USES.get(table) ?? new Set()).add(rel(f)));
  }
}

describe('table owners', () => {
  it('finds tables, entities and their uses (so the checks below see something)', () => {
    expect(TABLES.length).toBeGreaterThan(30);
    expect(ENTITIES.get('PaymentIntent')).toBe('payment_intents');
    expect([...(USES.get('payment_intents') ?? [])]).toContain(
      'src/payments/payment-intent.repository.ts',
    );
  });

  it('names an owner for every table, and each owner touches its table', () => {
    expect(TABLES.filter((t) => !OWNERS[t])).toEqual([]);
    expect(Object.keys(OWNERS).filter((t) => !TABLES.includes(t))).toEqual([]);
    expect(TABLES.filter((t) => !USES.get(t)?.has(OWNERS[t]))).toEqual([]);
  });

  it('lets no other file touch a table, except the listed ones', () => {
    const strays = TABLES.flatMap((t) =>
      [...(USES.get(t) ?? [])]
        .filter((f) => f !== OWNERS[t] && !EXCEPTIONS[t]?.[f])
        .map((f) => `${t}: ${f}`),
    );
    expect(strays).toEqual([]);
  });

  it('keeps the exceptions true (a fixed one must leave the list)', () => {
    const stale = Object.entries(EXCEPTIONS).flatMap(([t, byFile]) =>
      Object.keys(byFile)
        .filter((f) => !USES.get(t)?.has(f))
        .map((f) => `${t}: ${f}`),
    );
    expect(stale).toEqual([]);
  });

  it('keeps the money path without exceptions', () => {
    const money = [
      'payment_intents',
      'rail_transfers',
      'buyer_daily_spend',
      'delegated_tokens',
      'mandates',
      'checkout_sessions',
      'offers',
      'quotes',
      'refunds',
      'hosted_checkouts',
      'recurring_charges',
      'chains',
      'chain_entries',
    ];
    expect(money.filter((t) => EXCEPTIONS[t])).toEqual([]);
  });
});
