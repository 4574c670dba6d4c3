import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Forex files with AD Category-II partners (src/forex; docs/forex.md "Forex files").
 * - workspaces.kind: 'forex_partner' marks a partner's own workspace; its people are the partner's
 *   dealers (the dealer desk in the app). Every other workspace is 'standard'.
 * - forex_partners: one per partner workspace, with its RBI licence number and flat service fee.
 * - forex_rates: the partner's current buy/sell rates per currency for notes and for card or
 *   remittance, integer ten-thousandths of a rupee per ONE unit (JPY converted from per-100).
 * - forex_files: a file prepared by a buyer agent for one of its people. The PAN is stored only as
 *   an HMAC-SHA-256 (pan_hash, under the pepper of pan_key_version) and a masked form; the CHECKs
 *   make a raw PAN impossible to store in either column. lrs_* hold what the file committed to the
 *   person's LRS and TCS totals once submitted; the partial index serves those sums.
 * - forex_quotes: every quote made for a file, with the rates it locked, kept as it was.
 */
export class Forex1763700001400 implements MigrationInterface {
  name = 'Forex1763700001400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE workspaces ADD COLUMN kind text NOT NULL DEFAULT 'standard'
        CONSTRAINT workspaces_kind_chk CHECK (kind IN ('standard', 'forex_partner'));

      CREATE TABLE forex_partners (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        name text NOT NULL,
        licence_number text NOT NULL,
        category text NOT NULL CONSTRAINT forex_partners_category_chk CHECK (category = 'ad_category_ii'),
        service_fee_paise bigint NOT NULL CONSTRAINT forex_partners_service_fee_paise_chk CHECK (service_fee_paise >= 0),
        created_at timestamptz NOT NULL,
        CONSTRAINT forex_partners_workspace_id_key UNIQUE (workspace_id),
        CONSTRAINT forex_partners_licence_number_key UNIQUE (licence_number)
      );

      CREATE TABLE forex_rates (
        partner_id text NOT NULL REFERENCES forex_partners(id),
        currency text NOT NULL CONSTRAINT forex_rates_currency_chk CHECK (currency ~ '^[A-Z]{3}$'),
        notes_buy bigint NOT NULL,
        notes_sell bigint NOT NULL,
        card_buy bigint NOT NULL,
        card_sell bigint NOT NULL,
        set_at timestamptz NOT NULL,
        set_by text NOT NULL,
        PRIMARY KEY (partner_id, currency),
        CONSTRAINT forex_rates_positive_chk CHECK (notes_buy > 0 AND notes_sell > 0 AND card_buy > 0 AND card_sell > 0),
        CONSTRAINT forex_rates_spread_chk CHECK (notes_buy <= notes_sell AND card_buy <= card_sell)
      );

      CREATE TABLE forex_files (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        agent_id text NOT NULL REFERENCES agents(id),
        person_id text NOT NULL REFERENCES persons(id),
        partner_id text NOT NULL REFERENCES forex_partners(id),
        kind text NOT NULL CONSTRAINT forex_files_kind_chk
          CHECK (kind IN ('travel', 'remittance', 'buy_back', 'corporate_travel')),
        purpose_code text NOT NULL CONSTRAINT forex_files_purpose_code_chk CHECK (purpose_code ~ '^S[0-9]{4}$'),
        traveller_name text NOT NULL,
        beneficiary_name text,
        company_name text,
        destination_country text NOT NULL CONSTRAINT forex_files_destination_country_chk CHECK (destination_country ~ '^[A-Z]{2}$'),
        departure_date date,
        return_date date,
        education_loan_funded boolean NOT NULL DEFAULT false,
        notes text,
        pan_hash text NOT NULL CONSTRAINT forex_files_pan_hash_chk CHECK (pan_hash ~ '^[0-9a-f]{64}$'),
        pan_key_version integer NOT NULL CONSTRAINT forex_files_pan_key_version_chk CHECK (pan_key_version >= 1),
        pan_masked text NOT NULL CONSTRAINT forex_files_pan_masked_chk CHECK (pan_masked ~ '^XXXXX[0-9]{4}[A-Z]$'),
        pan_holder_type text NOT NULL CONSTRAINT forex_files_pan_holder_type_chk CHECK (pan_holder_type ~ '^[A-Z]$'),
        status text NOT NULL CONSTRAINT forex_files_status_chk CHECK (status IN
          ('draft', 'quoted', 'awaiting_declaration', 'submitted', 'booked', 'returned', 'rejected', 'expired')),
        current_quote_id text,
        lrs_financial_year text,
        lrs_usd_cents bigint NOT NULL DEFAULT 0 CONSTRAINT forex_files_lrs_usd_cents_chk CHECK (lrs_usd_cents >= 0),
        lrs_inr_paise bigint NOT NULL DEFAULT 0 CONSTRAINT forex_files_lrs_inr_paise_chk CHECK (lrs_inr_paise >= 0),
        submissions integer NOT NULL DEFAULT 0,
        returns integer NOT NULL DEFAULT 0,
        submitted_at timestamptz,
        declaration_due_at timestamptz,
        declared_at timestamptz,
        declared_by text REFERENCES persons(id),
        decided_at timestamptz,
        decided_by text REFERENCES persons(id),
        deal_reference text,
        dealer_notes jsonb NOT NULL DEFAULT '[]',
        receipt_id text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT forex_files_receipt_id_key UNIQUE (receipt_id),
        CONSTRAINT forex_files_dates_chk CHECK (return_date IS NULL OR departure_date IS NULL OR return_date >= departure_date),
        CONSTRAINT forex_files_booked_chk CHECK (status <> 'booked' OR (deal_reference IS NOT NULL AND decided_by IS NOT NULL)),
        CONSTRAINT forex_files_declared_chk CHECK (status NOT IN ('submitted', 'booked') OR declared_by IS NOT NULL)
      );
      CREATE INDEX forex_files_agent_id_idx ON forex_files (agent_id, created_at DESC, id DESC);
      CREATE INDEX forex_files_partner_id_idx ON forex_files (partner_id, status, submitted_at);
      CREATE INDEX forex_files_person_id_idx ON forex_files (person_id, created_at DESC);
      CREATE INDEX forex_files_lrs_idx ON forex_files (pan_hash, lrs_financial_year)
        WHERE status IN ('awaiting_declaration', 'submitted', 'booked');
      CREATE INDEX forex_files_declaration_due_idx ON forex_files (declaration_due_at)
        WHERE status = 'awaiting_declaration';

      CREATE TABLE forex_quotes (
        id text PRIMARY KEY,
        file_id text NOT NULL REFERENCES forex_files(id),
        partner_id text NOT NULL REFERENCES forex_partners(id),
        lines jsonb NOT NULL,
        rupees_paise bigint NOT NULL CONSTRAINT forex_quotes_rupees_paise_chk CHECK (rupees_paise > 0),
        fee_paise bigint NOT NULL CONSTRAINT forex_quotes_fee_paise_chk CHECK (fee_paise >= 0),
        tcs_paise bigint NOT NULL CONSTRAINT forex_quotes_tcs_paise_chk CHECK (tcs_paise >= 0),
        total_paise bigint NOT NULL,
        direction text NOT NULL CONSTRAINT forex_quotes_direction_chk CHECK (direction IN ('person_pays', 'person_receives')),
        usd_reference_rate bigint NOT NULL CONSTRAINT forex_quotes_usd_reference_rate_chk CHECK (usd_reference_rate > 0),
        usd_equivalent_cents bigint NOT NULL,
        notes_usd_cents bigint NOT NULL,
        financial_year text NOT NULL,
        lrs_prior_usd_cents bigint NOT NULL,
        tcs jsonb,
        rate_locked_until timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT forex_quotes_total_chk CHECK (
          (direction = 'person_pays' AND total_paise = rupees_paise + fee_paise + tcs_paise)
          OR (direction = 'person_receives' AND total_paise = rupees_paise - fee_paise AND tcs_paise = 0)),
        CONSTRAINT forex_quotes_lock_chk CHECK (rate_locked_until > created_at)
      );
      CREATE INDEX forex_quotes_file_id_idx ON forex_quotes (file_id, created_at DESC);
      ALTER TABLE forex_files ADD CONSTRAINT forex_files_current_quote_id_fkey
        FOREIGN KEY (current_quote_id) REFERENCES forex_quotes(id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE forex_files DROP CONSTRAINT forex_files_current_quote_id_fkey;
      DROP TABLE forex_quotes;
      DROP TABLE forex_files;
      DROP TABLE forex_rates;
      DROP TABLE forex_partners;
      ALTER TABLE workspaces DROP COLUMN kind;
    `);
  }
}
