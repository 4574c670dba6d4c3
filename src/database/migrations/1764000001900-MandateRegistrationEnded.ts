import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the gateway registration that follows a mandate's authorisation ended (registered or
 * failed), written by src/gateway/mandate-registration.ts. Until then, or until a bound passes, the
 * registration is pending and the mandate's cap and validity cannot be amended (docs/mandates.md
 * "Amendments while the gateway registration is pending"). A timestamp only: no personal data.
 */
export class MandateRegistrationEnded1764000001900 implements MigrationInterface {
  name = 'MandateRegistrationEnded1764000001900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mandates ADD COLUMN gateway_registration_ended_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mandates DROP COLUMN gateway_registration_ended_at`);
  }
}
