import type { StoredColumnType } from '../database/personal-rows';
import type { RetentionKind } from '../retention/retention-schedule';
import { LEGAL_HOLDS, LegalHoldRule } from './legal-holds';

/**
 * The personal-data map (DPDP Act 2023 ss. 8, 11-13; docs/personal-data.md "The personal-data
 * map", generated from this file by `npm run personal-data:doc`). It names **every table** of the
 * schema and every column that can hold text (text, varchar, jsonb, arrays, bytea): either why it
 * is not personal, or the category, purpose, retention and what erasure does.
 *
 * The map drives the rights: erasure (PersonalDataService.erase) walks every `replace`, `clear`
 * and `matching` column below through its table owner's store (src/personal-data/row-stores.ts);
 * the download lists what we hold per map entry; retention names the schedule line or legal hold.
 * `test/e2e/personal-data-map.e2e-spec.ts` fails when a migration adds a table or a text column
 * the map does not name, or the map names one that does not exist.
 */

export type PersonalCategory =
  | 'contact'
  | 'name'
  | 'phone'
  | 'address'
  | 'free_text'
  | 'identity_derived'
  | 'summary_copy'
  | 'stored_answer'
  | 'event_payload'
  | 'credential_hint'
  | 'network_device'
  | 'document';

export const CATEGORY_LABEL: Record<PersonalCategory, string> = {
  contact: 'Contact details (email, phone, address)',
  name: 'Name',
  phone: 'Phone number',
  address: 'Postal address',
  free_text: 'Free text someone typed (may name a person)',
  identity_derived: 'Derived from an identity (masked or keyed hash)',
  summary_copy: 'Copy of a name in a summary or label',
  stored_answer: 'Stored API answer (echoes the request)',
  event_payload: 'Event or message payload (copies of records)',
  credential_hint: 'Credential or session (hash or hint)',
  network_device: 'Network or device data',
  document: 'Uploaded document',
};

/** What erasure does to a personal column. */
export type Erasure =
  /** Every one of the person's identifiers in the text or JSON strings becomes "[erased]". */
  | { action: 'redact'; how: 'replace' }
  /** The column is set to NULL on rows where it holds one of the person's identifiers. */
  | { action: 'redact'; how: 'clear' }
  /** The owner's own step pseudonymises the column (named: `file#function`). */
  | { action: 'redact'; how: 'owner'; step: string }
  /** The row is deleted when the column holds one of the person's identifiers. */
  | { action: 'delete'; how: 'matching' }
  /** The owner's own step deletes the person's rows (named: `file#function`). */
  | { action: 'delete'; how: 'owner'; step: string }
  /** Kept, minimised elsewhere, under a named legal hold (src/personal-data/legal-holds.ts). */
  | { action: 'keep'; hold: LegalHoldRule['kind']; why: string };

/** How long a personal column is kept: a retention schedule line, a legal hold, or in words. */
export type Retention =
  { schedule: RetentionKind } | { hold: LegalHoldRule['kind'] } | { while: string };

export type NotPersonalReason =
  | 'identifier'
  | 'status_or_code'
  | 'hash_or_key'
  | 'reference'
  | 'fixed_text'
  | 'business'
  | 'must_hold_none';

export const NOT_PERSONAL_LABEL: Record<NotPersonalReason, string> = {
  identifier: 'an identifier we generate',
  status_or_code: 'a status, kind, code or currency from a fixed set',
  hash_or_key: 'a hash, secret, key or ciphertext of a credential (never a person’s data)',
  reference: 'a reference number from a bank, gateway or partner',
  fixed_text: 'text we write from fixed wording',
  business: 'data about a business or product, not a person',
  must_hold_none: 'by design holds no personal data (signed receipts verify offline)',
};

export interface PersonalColumn {
  column: string;
  type: StoredColumnType;
  personal: true;
  category: PersonalCategory;
  /** For jsonb: the JSON paths that can hold personal data. */
  paths?: string[];
  purpose: string;
  retention: Retention;
  erasure: Erasure;
}

export interface PlainColumn {
  column: string;
  type: StoredColumnType;
  personal: false;
  why: NotPersonalReason;
}

export type MappedColumn = PersonalColumn | PlainColumn;

export interface MappedTable {
  table: string;
  /** The file holding the table's SQL (docs/architecture.md "Table owners"). */
  owner: string;
  /** The section of the "your data" download where the person's rows appear, or why none. */
  download: string;
  columns: MappedColumn[];
}

// Shorthands for the not-personal columns.
const plain =
  (why: NotPersonalReason, type: StoredColumnType = 'text') =>
  (...columns: string[]): PlainColumn[] =>
    columns.map((column) => ({ column, type, personal: false, why }));
const ids = plain('identifier');
const codes = plain('status_or_code');
const hashes = plain('hash_or_key');
const refs = plain('reference');
const fixed = plain('fixed_text');
const business = plain('business');

const replace: Erasure = { action: 'redact', how: 'replace' };
const personal = (
  column: string,
  type: StoredColumnType,
  category: PersonalCategory,
  purpose: string,
  retention: Retention,
  erasure: Erasure,
  paths?: string[],
): PersonalColumn => ({
  column,
  type,
  personal: true,
  category,
  purpose,
  retention,
  erasure,
  ...(paths ? { paths } : {}),
});

const paymentHold: Retention = { hold: 'payment_records' };
const whileAccount: Retention = { while: 'While the workspace is open' };
const keepForex = (why: string): Erasure => ({ action: 'keep', hold: 'forex_records', why });

export const DATA_MAP: MappedTable[] = [
  {
    table: 'agents',
    owner: 'src/accounts/agent.repository.ts',
    download: 'agents',
    columns: [
      ...ids('id', 'workspace_id'),
      personal(
        'name',
        'text',
        'summary_copy',
        'A label the workspace gives its agent (may be a person’s name)',
        whileAccount,
        replace,
      ),
      ...codes('role', 'public_key_alg', 'status'),
      ...hashes('credential_hash', 'credential_hint', 'public_key_pem'),
    ],
  },
  {
    table: 'api_keys',
    owner: 'src/accounts/accounts.repository.ts',
    download: 'api_keys',
    columns: [
      ...ids('id', 'workspace_id'),
      personal(
        'name',
        'text',
        'summary_copy',
        'A label the person gives the key',
        whileAccount,
        replace,
      ),
      ...hashes('secret_hash', 'hint'),
    ],
  },
  {
    table: 'approvals',
    owner: 'src/approvals/approval.repository.ts',
    download: 'approvals',
    columns: [
      ...ids('id', 'workspace_id', 'subject_id', 'decided_by'),
      ...codes('kind', 'status'),
      personal(
        'summary',
        'text',
        'summary_copy',
        'Tells the approver who pays whom for what (copies agent names and the description)',
        whileAccount,
        replace,
      ),
      personal(
        'note',
        'text',
        'free_text',
        'The approver’s note on the decision',
        whileAccount,
        replace,
      ),
    ],
  },
  {
    table: 'audit_events',
    owner: 'src/common/audit.repository.ts',
    download: 'activity',
    columns: [
      ...ids('workspace_id', 'actor_id', 'subject_id'),
      ...codes('actor_type', 'action'),
      personal(
        'data',
        'jsonb',
        'event_payload',
        'What an action changed (field names, ids and codes; never a correction’s values)',
        whileAccount,
        replace,
        ['$.*'],
      ),
    ],
  },
  {
    table: 'breach_notices',
    owner: 'src/breaches/breach-register.repository.ts',
    download: 'not in the download: the notice itself was sent to the person',
    columns: [
      ...ids('id', 'breach_id', 'person_id', 'workspace_id', 'outbox_event_id'),
      personal(
        'sections',
        'jsonb',
        'free_text',
        'The breach notice sent to the person (DPDP Rules: intimation to each person affected)',
        whileAccount,
        replace,
        ['$.*'],
      ),
    ],
  },
  {
    table: 'buyer_daily_spend',
    owner: 'src/payments/payment-intent.repository.ts',
    download: 'not personal',
    columns: ids('buyer_agent_id'),
  },
  {
    table: 'chain_entries',
    owner: 'src/chains/chain.repository.ts',
    download: 'payments (receipt entries)',
    columns: [
      ...ids('chain_id'),
      ...hashes('prev_hash', 'hash', 'kid'),
      ...(['payload', 'jws'] as const).map((c) =>
        personal(
          c,
          c === 'payload' ? 'jsonb' : 'text',
          'free_text',
          'Signed receipt entries: ids, amounts, line items, a salted name digest; never a name, email or phone of ours. Free text others write into them (a refund reason, a dealer’s note) is signed as written',
          paymentHold,
          {
            action: 'keep',
            hold: 'payment_records',
            why: 'Signed: changing a byte breaks the receipt, which must verify offline',
          },
          c === 'payload' ? ['$.reason', '$.note'] : undefined,
        ),
      ),
    ],
  },
  {
    table: 'chains',
    owner: 'src/chains/chain.repository.ts',
    download: 'not personal',
    columns: [...ids('id'), ...hashes('head_hash')],
  },
  {
    table: 'checkout_sessions',
    owner: 'src/checkout/checkout-session.repository.ts',
    download: 'checkout_sessions',
    columns: [
      ...ids('id', 'workspace_id', 'seller_agent_id', 'protocol_key_id', 'intent_id', 'order_id'),
      ...codes('status', 'currency'),
      ...plain('business', 'jsonb')('line_items'),
      personal(
        'buyer',
        'jsonb',
        'contact',
        'The buyer contact an agent platform gave for the purchase (ACP `buyer`)',
        { while: 'While the seller needs it for the order; the session is kept with its payment' },
        { action: 'redact', how: 'clear' },
        ['$.first_name', '$.last_name', '$.full_name', '$.email', '$.phone_number'],
      ),
      personal(
        'messages',
        'jsonb',
        'free_text',
        'Messages the seller shows about the session',
        { while: 'While the session is kept' },
        replace,
        ['$[*].content'],
      ),
      personal(
        'intent_trace',
        'jsonb',
        'free_text',
        'Why a buyer cancelled (analytics the platform sends)',
        { while: 'While the session is kept' },
        replace,
        ['$.reason_code', '$.trace_summary', '$.metadata'],
      ),
      personal(
        'fulfillment_details',
        'jsonb',
        'address',
        'Where and to whom the order is delivered (ACP fulfillment details)',
        { while: 'While the seller needs it for the order; the session is kept with its payment' },
        { action: 'redact', how: 'clear' },
        [
          '$.name',
          '$.email',
          '$.phone_number',
          '$.address.name',
          '$.address.line_one',
          '$.address.line_two',
          '$.address.city',
          '$.address.state',
          '$.address.postal_code',
        ],
      ),
    ],
  },
  {
    table: 'consent_records',
    owner: 'src/personal-data/personal-data.repository.ts',
    download: 'consents',
    columns: [
      ...ids('id', 'workspace_id', 'person_id', 'subject_id'),
      ...codes('kind'),
      ...fixed('purpose'),
    ],
  },
  {
    table: 'delegated_tokens',
    owner: 'src/delegate-payment/delegated-token.repository.ts',
    download: 'payments (the token is part of the purchase it paid)',
    columns: [
      ...ids(
        'id',
        'workspace_id',
        'buyer_agent_id',
        'protocol_key_id',
        'mandate_id',
        'checkout_session_id',
        'merchant_agent_id',
      ),
      ...codes('currency', 'status'),
      personal(
        'metadata',
        'jsonb',
        'free_text',
        'Metadata the agent platform attaches to a delegated token',
        paymentHold,
        replace,
        ['$.*'],
      ),
    ],
  },
  {
    table: 'forex_documents',
    owner: 'src/forex/forex-file.repository.ts',
    download: 'forex_files[].documents',
    columns: [
      ...ids('id', 'file_id', 'stored_document_id', 'uploaded_by'),
      ...codes('kind', 'content_type'),
      ...hashes('sha256'),
      personal(
        'filename',
        'text',
        'free_text',
        'The uploaded file’s name (may hold the traveller’s name)',
        { hold: 'forex_records' },
        replace,
      ),
    ],
  },
  {
    table: 'forex_files',
    owner: 'src/forex/forex-file.repository.ts',
    download: 'forex_files',
    columns: [
      ...ids(
        'id',
        'workspace_id',
        'agent_id',
        'person_id',
        'partner_id',
        'current_quote_id',
        'declared_by',
        'decided_by',
        'receipt_id',
      ),
      ...codes(
        'kind',
        'purpose_code',
        'destination_country',
        'pan_holder_type',
        'status',
        'lrs_financial_year',
      ),
      ...refs('deal_reference'),
      ...(
        [
          'traveller_name',
          'beneficiary_name',
          'company_name',
          'notes',
          'traveller_name_salt',
        ] as const
      ).map((c) =>
        personal(
          c,
          'text',
          c === 'notes' ? 'free_text' : c === 'traveller_name_salt' ? 'identity_derived' : 'name',
          c === 'traveller_name_salt'
            ? 'Salt of the name digest in the signed file history (erasing it makes the digest unlinkable)'
            : 'Who travels or receives the money, as the dealer needs it (RBI LRS)',
          { hold: 'forex_records' },
          {
            action: 'redact',
            how: 'owner',
            step: 'src/forex/forex-file.repository.ts#personalDataForex.eraseOfPerson',
          },
        ),
      ),
      personal(
        'pan_hash',
        'text',
        'identity_derived',
        'Keyed hash of the PAN: adds up LRS use per PAN and financial year (FEMA 1999)',
        { hold: 'forex_records' },
        keepForex('LRS totals per PAN must stay computable for the financial year'),
      ),
      personal(
        'pan_masked',
        'text',
        'identity_derived',
        'The masked PAN the dealer sees (XXXXX1234F)',
        { hold: 'forex_records' },
        keepForex('KYC record of the transaction'),
      ),
      personal(
        'dealer_notes',
        'jsonb',
        'free_text',
        'The dealer’s notes on the file',
        { hold: 'forex_records' },
        replace,
        ['$[*].note', '$.*'],
      ),
    ],
  },
  {
    table: 'forex_partners',
    owner: 'src/forex/forex-partner.repository.ts',
    download: 'not personal',
    columns: [
      ...ids('id', 'workspace_id'),
      ...business('name', 'licence_number'),
      ...codes('category'),
    ],
  },
  {
    table: 'forex_quotes',
    owner: 'src/forex/forex-file.repository.ts',
    download: 'forex_files (quotes)',
    columns: [
      ...ids('id', 'file_id', 'partner_id'),
      ...plain('business', 'jsonb')('lines', 'tcs'),
      ...codes('direction', 'financial_year'),
    ],
  },
  {
    table: 'forex_rates',
    owner: 'src/forex/forex-partner.repository.ts',
    download: 'not personal',
    columns: [...ids('partner_id', 'set_by'), ...codes('currency')],
  },
  {
    table: 'gateway_capture_refunds',
    owner: 'src/gateway/capture-refund.repository.ts',
    download: 'refunds',
    columns: [
      ...ids(
        'id',
        'payment_id',
        'order_id',
        'checkout_id',
        'quote_id',
        'intent_id',
        'buyer_workspace_id',
        'seller_workspace_id',
        'seller_agent_id',
        'gateway_refund_id',
      ),
      ...codes('reason_code', 'status', 'last_error'),
      personal(
        'reason',
        'text',
        'free_text',
        'Why a captured payment is refunded',
        paymentHold,
        replace,
      ),
    ],
  },
  {
    table: 'gateway_events',
    owner: 'src/rails/gateway/gateway.repository.ts',
    download: 'payments (rail_reference)',
    columns: [
      ...ids('id', 'order_id', 'payment_id', 'refund_id', 'subject_id'),
      ...codes('type', 'outcome', 'reason'),
      personal(
        'payload',
        'jsonb',
        'event_payload',
        'The gateway’s signed webhook as received (we send it no name, email or phone)',
        paymentHold,
        {
          action: 'keep',
          hold: 'payment_records',
          why: 'The payment system operator’s own record of the payment, kept as received',
        },
        ['$.payload.payment.entity.email', '$.payload.payment.entity.contact'],
      ),
    ],
  },
  {
    table: 'gateway_mandate_tokens',
    owner: 'src/rails/gateway/gateway.repository.ts',
    download: 'mandates',
    columns: [
      ...ids('mandate_id', 'customer_id', 'token_id', 'registration_order_id'),
      ...codes('status'),
    ],
  },
  {
    table: 'gateway_orders',
    owner: 'src/rails/gateway/gateway.repository.ts',
    download: 'payments (rail_reference)',
    columns: [...ids('id', 'subject_id'), ...codes('kind')],
  },
  {
    table: 'gateway_reserve_blocks',
    owner: 'src/rails/gateway/gateway.repository.ts',
    download: 'mandates',
    columns: [...ids('mandate_id', 'customer_id', 'block_id'), ...codes('status')],
  },
  {
    table: 'gateway_settlements',
    owner: 'src/settlements/settlement.repository.ts',
    download: 'not personal',
    columns: [...ids('id'), ...refs('utr')],
  },
  {
    table: 'hosted_checkouts',
    owner: 'src/public-pay/hosted-checkout.repository.ts',
    download: 'payments',
    columns: [
      ...ids('id', 'quote_id', 'intent_id', 'gateway_order_id', 'gateway_link_id'),
      ...codes('status', 'currency', 'rail', 'failure_code', 'failure_reason', 'channel'),
      ...refs('link_url'),
    ],
  },
  {
    table: 'idempotency_records',
    owner: 'src/common/idempotency/idempotency-record.repository.ts',
    download: 'not in the download: a stored copy of an answer already given',
    columns: [
      ...ids('owner_id', 'key', 'intent_id'),
      ...codes('method', 'path'),
      ...hashes('request_hash'),
      personal(
        'response_raw',
        'text',
        'stored_answer',
        'The answer to a request, to answer a retry the same way (echoes names and contacts)',
        { schedule: 'idempotency_records' },
        // Redacted, not deleted: a retry with the same key must still get the stored answer.
        replace,
        ['$.*'],
      ),
    ],
  },
  {
    table: 'mandate_amendments',
    owner: 'src/mandates/mandate-amendment.repository.ts',
    download: 'mandates',
    columns: [
      ...ids('id', 'mandate_id', 'workspace_id', 'buyer_agent_id', 'chain_id', 'decided_by'),
      ...codes('status'),
      ...plain('status_or_code', 'text[]')('changed'),
      personal(
        'old_terms',
        'jsonb',
        'free_text',
        'The mandate terms before the change',
        { hold: 'mandate_records' },
        replace,
        ['$.description'],
      ),
      personal(
        'new_terms',
        'jsonb',
        'free_text',
        'The mandate terms asked for',
        { hold: 'mandate_records' },
        replace,
        ['$.description'],
      ),
      personal(
        'reason',
        'text',
        'free_text',
        'Why the seller asks for a change',
        { hold: 'mandate_records' },
        replace,
      ),
      personal(
        'decision_note',
        'text',
        'free_text',
        'The person’s note on the decision',
        { hold: 'mandate_records' },
        replace,
      ),
    ],
  },
  {
    table: 'mandates',
    owner: 'src/mandates/mandate.repository.ts',
    download: 'mandates',
    columns: [
      ...ids('id', 'workspace_id', 'buyer_agent_id', 'authorised_by'),
      ...codes('kind', 'rail', 'status', 'billing_cycle'),
      ...plain('identifier', 'text[]')('payee_agent_ids'),
      personal(
        'description',
        'text',
        'free_text',
        'What the mandate is for, as the person wrote it',
        { hold: 'mandate_records' },
        replace,
      ),
    ],
  },
  {
    table: 'mcp_refund_requests',
    owner: 'src/mcp/mcp-refund-request.repository.ts',
    download: 'refunds',
    columns: [...ids('agent_id', 'idempotency_key', 'refund_id'), ...hashes('request_hash')],
  },
  {
    table: 'offers',
    owner: 'src/seller/seller.repository.ts',
    download: 'not personal: a seller’s catalogue',
    columns: [...ids('id', 'seller_agent_id'), ...business('sku', 'name', 'category')],
  },
  {
    table: 'outbox_events',
    owner: 'src/outbox/outbox.repository.ts',
    download: 'not in the download: copies of the records listed',
    columns: [
      ...ids('id', 'workspace_id', 'agent_id', 'subject_id', 'protocol_key_id'),
      ...codes('type'),
      personal(
        'payload',
        'jsonb',
        'event_payload',
        'The event sent to webhooks (copies of sessions, orders, intents: buyer contact, descriptions)',
        { while: 'Until delivered and its record is no longer needed; kept with the workspace' },
        replace,
        [
          '$.data.buyer',
          '$.data.fulfillment_details',
          '$.data.description',
          '$.data.summary',
          '$.*',
        ],
      ),
    ],
  },
  {
    table: 'outbox_pending',
    owner: 'src/outbox/outbox.repository.ts',
    download: 'not personal',
    columns: ids('event_id'),
  },
  {
    table: 'payment_intents',
    owner: 'src/payments/payment-intent.repository.ts',
    download: 'payments',
    columns: [
      ...ids(
        'id',
        'buyer_workspace_id',
        'buyer_agent_id',
        'seller_workspace_id',
        'seller_agent_id',
        'source_id',
        'token_id',
        'mandate_id',
        'receipt_id',
      ),
      ...codes('currency', 'source_kind', 'status', 'decline_code', 'decline_reason', 'rail'),
      ...refs('rail_reference'),
      personal('description', 'text', 'free_text', 'What the payment is for', paymentHold, replace),
      personal(
        'receipt_context',
        'jsonb',
        'summary_copy',
        'What the receipt page shows (line items, seller name)',
        paymentHold,
        replace,
        ['$.line_items[*].name', '$.seller_name', '$.*'],
      ),
    ],
  },
  {
    table: 'person_sessions',
    owner: 'src/web/person-session.repository.ts',
    download: 'sessions',
    columns: [
      ...ids('id', 'person_id'),
      ...(['token_hash', 'csrf_secret_hash'] as const).map((c) =>
        personal(
          c,
          'text',
          'credential_hint',
          'Keeps the person signed in (a hash of the cookie)',
          { schedule: 'person_sessions' },
          {
            action: 'delete',
            how: 'owner',
            step: 'src/web/person-session.repository.ts#deleteSessionsOf',
          },
        ),
      ),
    ],
  },
  {
    table: 'personal_data_breaches',
    owner: 'src/breaches/breach-register.repository.ts',
    download: 'not in the download: the operator’s register (the person gets a notice)',
    columns: [
      ...ids('id', 'operator_workspace_id', 'recorded_by'),
      ...refs('board_reference'),
      // The register describes an incident and its extent, never one person (docs/breaches.md).
      ...fixed(
        'summary',
        'extent',
        'location',
        'data_categories',
        'likely_consequences',
        'mitigation',
        'person_actions',
        'facts_and_reasons',
        'responsible_findings',
        'remedial_measures',
      ),
      ...plain('fixed_text', 'jsonb')('scope'),
    ],
  },
  {
    table: 'personal_data_erasures',
    owner: 'src/personal-data/personal-data.repository.ts',
    download: 'not in the download: written when the account is erased',
    columns: [...ids('id', 'workspace_id', 'person_id'), ...plain('fixed_text', 'jsonb')('kept')],
  },
  {
    table: 'personal_data_old_identifiers',
    owner: 'src/personal-data/personal-data.repository.ts',
    download: 'corrected_values',
    columns: [
      ...ids('id', 'person_id'),
      ...codes('kind'),
      personal(
        'digest',
        'text',
        'identity_derived',
        'Keyed hash of a name, email or phone the person corrected, so erasure finds old copies',
        { while: 'Until the person is erased' },
        {
          action: 'delete',
          how: 'owner',
          step: 'src/personal-data/personal-data.repository.ts#deleteOldIdentifiers',
        },
      ),
    ],
  },
  {
    table: 'persons',
    owner: 'src/accounts/accounts.repository.ts',
    download: 'profile',
    columns: [
      ...ids('id', 'workspace_id'),
      ...codes('role'),
      ...(
        [
          ['email', 'contact', 'Signing in, and how we reach the person'],
          ['name', 'name', 'How we address the person'],
          ['phone', 'phone', 'How we reach the person (optional)'],
          ['password_hash', 'credential_hint', 'Signing in (scrypt hash)'],
        ] as const
      ).map(([c, category, purpose]) =>
        personal(c, 'text', category, purpose, whileAccount, {
          action: 'redact',
          how: 'owner',
          step: 'src/accounts/accounts.repository.ts#personalDataAccounts.erasePerson',
        }),
      ),
    ],
  },
  {
    table: 'protocol_keys',
    owner: 'src/protocol-keys/protocol-key.repository.ts',
    download: 'protocol_keys',
    columns: [
      ...ids('id', 'workspace_id', 'agent_id'),
      ...codes('role', 'public_key_alg'),
      personal(
        'name',
        'text',
        'summary_copy',
        'A label the person gives the key',
        whileAccount,
        replace,
      ),
      ...hashes('secret_hash', 'hint', 'public_key_pem'),
    ],
  },
  {
    table: 'quotes',
    owner: 'src/quotes/quote.repository.ts',
    download: 'quotes',
    columns: [
      ...ids(
        'id',
        'seller_workspace_id',
        'seller_agent_id',
        'buyer_workspace_id',
        'buyer_agent_id',
        'offer_id',
        'intent_id',
      ),
      ...codes('origin', 'category', 'currency', 'status'),
      personal(
        'seller_name',
        'text',
        'summary_copy',
        'The seller agent’s name as the buyer saw it on the quote',
        paymentHold,
        replace,
      ),
      personal(
        'line_items',
        'jsonb',
        'free_text',
        'What is quoted (free-form lines the seller typed)',
        paymentHold,
        replace,
        ['$[*].name', '$[*].description'],
      ),
    ],
  },
  {
    table: 'rail_status_checks',
    owner: 'src/payments/rail-status-check.repository.ts',
    download: 'not personal',
    columns: ids('intent_id'),
  },
  {
    table: 'rail_transfers',
    owner: 'src/payments/rail-transfer.repository.ts',
    download: 'payments',
    columns: [
      ...ids(
        'id',
        'intent_id',
        'refund_id',
        'gateway_order_id',
        'gateway_payment_id',
        'gateway_refund_id',
      ),
      ...codes('direction', 'status', 'failure_code'),
      ...refs('reference'),
    ],
  },
  {
    table: 'recurring_charges',
    owner: 'src/recurring/recurring-charge.repository.ts',
    download: 'payments (scheduled charges)',
    columns: [
      ...ids(
        'id',
        'mandate_id',
        'buyer_workspace_id',
        'buyer_agent_id',
        'seller_workspace_id',
        'seller_agent_id',
        'approval_id',
        'authorised_by',
        'intent_id',
        'cancelled_by',
        'receipt_id',
      ),
      ...codes('status', 'authorisation', 'failure_code', 'failure_reason'),
      ...refs('upi_mandate_ref'),
      personal(
        'description',
        'text',
        'free_text',
        'What the scheduled charge is for',
        paymentHold,
        replace,
      ),
      personal(
        'reason',
        'text',
        'free_text',
        'Why the charge was made or cancelled',
        paymentHold,
        replace,
      ),
    ],
  },
  {
    table: 'refunds',
    owner: 'src/refunds/refund.repository.ts',
    download: 'refunds',
    columns: [
      ...ids(
        'id',
        'intent_id',
        'seller_workspace_id',
        'seller_agent_id',
        'buyer_agent_id',
        'approval_id',
        'decided_by',
      ),
      ...codes('currency', 'status', 'failure_code', 'failure_reason'),
      ...refs('rail_reference'),
      personal(
        'reason',
        'text',
        'free_text',
        'Why the refund is made',
        { hold: 'refund_records' },
        replace,
      ),
    ],
  },
  {
    table: 'schema_migrations',
    owner: 'src/database/migrate.ts',
    download: 'not personal',
    columns: fixed('name'),
  },
  {
    table: 'seen_signatures',
    owner: 'src/common/signing/seen-signature.repository.ts',
    download: 'not personal',
    columns: hashes('signature_hash'),
  },
  {
    table: 'seller_listings',
    owner: 'src/seller/seller.repository.ts',
    download: 'not personal',
    columns: ids('agent_id'),
  },
  {
    table: 'settlement_lines',
    owner: 'src/settlements/settlement.repository.ts',
    download: 'not personal: the gateway’s settlement report',
    columns: [
      ...ids(
        'id',
        'gateway_entity_id',
        'gateway_settlement_id',
        'gateway_order_id',
        'intent_id',
        'refund_id',
        'seller_agent_id',
      ),
      ...codes('kind', 'mismatch'),
      ...refs('utr', 'order_receipt'),
    ],
  },
  {
    table: 'signature_nonces',
    owner: 'src/common/signing/http-message-signatures/postgres-nonce-store.ts',
    download: 'not personal',
    columns: hashes('nonce_hash'),
  },
  {
    table: 'signing_keys',
    owner: 'src/chains/signing-key.repository.ts',
    download: 'not personal (published at /.well-known/jwks.json)',
    columns: [
      ...hashes('kid', 'private_key_pem'),
      ...codes('alg'),
      ...plain('hash_or_key', 'jsonb')('public_jwk'),
    ],
  },
  {
    table: 'stored_documents',
    owner: 'src/documents/stored-document.repository.ts',
    download: 'forex_files[].documents (metadata; the file itself on the forex page)',
    columns: [
      ...ids('id'),
      ...codes('content_type'),
      ...hashes('sha256'),
      personal(
        'ciphertext',
        'bytea',
        'document',
        'The forex file’s documents (passport, visa, ticket), encrypted',
        { schedule: 'forex_document_bytes' },
        keepForex(
          'KYC documents of the transaction; the retention job deletes the bytes when the hold ends',
        ),
      ),
    ],
  },
  {
    table: 'ucp_order_webhooks',
    owner: 'src/ucp/orders/ucp-order.repository.ts',
    download: 'not personal: a platform’s endpoint',
    columns: [...ids('checkout_session_id', 'endpoint_id'), ...refs('profile_url', 'webhook_url')],
  },
  {
    table: 'ucp_signing_keys',
    owner: 'src/ucp/orders/ucp-order.repository.ts',
    download: 'not personal',
    columns: [
      ...hashes('kid', 'private_key_sealed'),
      ...plain('hash_or_key', 'jsonb')('public_jwk'),
    ],
  },
  {
    table: 'webhook_attempts',
    owner: 'src/webhooks/webhook-delivery.repository.ts',
    download: 'not in the download: a receiver’s answer to a delivery',
    columns: [
      ...ids('id', 'delivery_id'),
      ...codes('trigger'),
      personal(
        'error',
        'text',
        'free_text',
        'Why a delivery failed',
        { while: 'Kept with the workspace' },
        replace,
      ),
      personal(
        'response_body',
        'text',
        'stored_answer',
        'The receiver’s answer (may echo the delivered payload)',
        { while: 'Kept with the workspace' },
        replace,
      ),
    ],
  },
  {
    table: 'webhook_deliveries',
    owner: 'src/webhooks/webhook-delivery.repository.ts',
    download: 'not in the download: the payload is the outbox event',
    columns: [
      ...ids('id', 'workspace_id', 'endpoint_id', 'event_id'),
      ...codes('event_type', 'status', 'last_error'),
    ],
  },
  {
    table: 'webhook_endpoints',
    owner: 'src/webhooks/webhook-endpoint.repository.ts',
    download: 'webhook_endpoints',
    columns: [
      ...ids('id', 'workspace_id', 'agent_id', 'protocol_key_id'),
      ...codes('status', 'disabled_reason', 'kind'),
      ...plain('status_or_code', 'text[]')('event_types'),
      ...refs('url'),
      ...hashes('secret_ciphertext', 'previous_secret_ciphertext'),
      personal(
        'description',
        'text',
        'free_text',
        'A label for the endpoint',
        whileAccount,
        replace,
      ),
    ],
  },
  {
    table: 'workspaces',
    owner: 'src/accounts/accounts.repository.ts',
    download: 'profile.workspace',
    columns: [
      ...ids('id'),
      ...codes('kind', 'status'),
      personal(
        'name',
        'text',
        'summary_copy',
        'The workspace’s name (often the person’s or their business’s)',
        whileAccount,
        replace,
      ),
    ],
  },
];

/** The map's entry for a table, if any. */
export function mappedTable(table: string): MappedTable | undefined {
  return DATA_MAP.find((t) => t.table === table);
}

export function personalColumns(t: MappedTable): PersonalColumn[] {
  return t.columns.filter((c): c is PersonalColumn => c.personal);
}

/** Tables holding at least one personal column. */
export function personalTables(): MappedTable[] {
  return DATA_MAP.filter((t) => personalColumns(t).length > 0);
}

/** The columns erasure's walk redacts or deletes by matching the person's identifiers. */
export function walkedColumns(t: MappedTable): PersonalColumn[] {
  return personalColumns(t).filter(
    (c) =>
      (c.erasure.action === 'redact' && c.erasure.how !== 'owner') ||
      (c.erasure.action === 'delete' && c.erasure.how === 'matching'),
  );
}

/** A retention in words (the doc and the download). */
export function retentionText(r: Retention): string {
  if ('schedule' in r) {
    return `Retention schedule line "${r.schedule}"`;
  }
  if ('hold' in r) {
    return `Kept under the legal hold "${holdLabel(r.hold)}" after the account closes`;
  }
  return r.while;
}

/** What erasure does, in words (the doc and the download). */
export function erasureText(e: Erasure): string {
  switch (e.action) {
    case 'redact':
      return e.how === 'replace'
        ? 'Redacted: the person’s name, email and phone (current or corrected-away, matched normalised) become "[erased]"'
        : e.how === 'clear'
          ? 'Cleared (set to nothing) where it holds the person’s name, email or phone'
          : `Pseudonymised by its owner (${e.step})`;
    case 'delete':
      return e.how === 'matching'
        ? 'Row deleted where it holds the person’s name, email or phone'
        : `Rows deleted by their owner (${e.step})`;
    case 'keep':
      return `Kept under the legal hold "${holdLabel(e.hold)}": ${e.why}`;
  }
}

function holdLabel(kind: LegalHoldRule['kind']): string {
  return LEGAL_HOLDS.find((h) => h.kind === kind)?.label ?? kind;
}
