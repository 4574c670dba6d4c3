import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a gateway registration of a mandate made by a debit started (the rail registers a mandate
 * at its first debit when the registration after authorisation failed,
 * src/rails/gateway/gateway-rail.ts). From then until `gateway_registration_ended_at` is later, or
 * a bound passes, the registration is pending and the mandate's cap and validity cannot be amended
 * (docs/mandates.md "Amendments while the gateway registration is pending"). A timestamp only: no
 * personal data.
 */
export class MandateRegistrationStarted1764000002150 implements MigrationInterface {
  name = 'MandateRegistrationStarted1764000002150';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mandates ADD COLUMN gateway_registration_started_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mandates DROP COLUMN gateway_registration_started_at`);
  }
}
