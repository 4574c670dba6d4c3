import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Recurring payments under RBI's E-Mandate Framework 2026 (DOMAIN.md 12a; docs/recurring.md "Recurring
 * payments (UPI AutoPay)"):
 * - `reason`: why the seller debits (named in the pre-debit notice); rows before this column take
 *   their description;
 * - `upi_mandate_ref`: the gateway's UPI mandate (token) reference when the notice went out, if any;
 * - `first_debit`: scheduled before any debit on the mandate settled, so it needs the person's
 *   authentication (an approval, or the mandate's own authorisation: `authorisation =
 *   'with_registration'` for a first debit scheduled while the mandate awaited it);
 * - `alerted_at`, `receipt_id`: when the post-debit alert went out (at most once per charge) and the
 *   receipt it named.
 */
export class Recurring20261764000000650 implements MigrationInterface {
  name = 'Recurring20261764000000650';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE recurring_charges
        ADD COLUMN reason text,
        ADD COLUMN upi_mandate_ref text,
        ADD COLUMN first_debit boolean NOT NULL DEFAULT false,
        ADD COLUMN alerted_at timestamptz,
        ADD COLUMN receipt_id text,
        DROP CONSTRAINT recurring_charges_authorisation_check,
        ADD CONSTRAINT recurring_charges_authorisation_check
          CHECK (authorisation IN ('none', 'approval', 'upi_afa', 'with_registration'));
      UPDATE recurring_charges SET reason = description;
      ALTER TABLE recurring_charges ALTER COLUMN reason SET NOT NULL;
      ALTER TABLE recurring_charges ADD CONSTRAINT recurring_charges_registration_chk
        CHECK (authorisation <> 'with_registration' OR first_debit);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE recurring_charges SET authorisation = 'approval' WHERE authorisation = 'with_registration';
      ALTER TABLE recurring_charges
        DROP CONSTRAINT recurring_charges_registration_chk,
        DROP CONSTRAINT recurring_charges_authorisation_check,
        ADD CONSTRAINT recurring_charges_authorisation_check
          CHECK (authorisation IN ('none', 'approval', 'upi_afa')),
        DROP COLUMN receipt_id,
        DROP COLUMN alerted_at,
        DROP COLUMN first_debit,
        DROP COLUMN upi_mandate_ref,
        DROP COLUMN reason;
    `);
  }
}
