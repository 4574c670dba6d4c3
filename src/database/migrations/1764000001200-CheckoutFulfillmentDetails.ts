import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * ACP `fulfillment_details` kept on the checkout session (docs/acp.md "Accepted extensions", ACP PR
 * #200): the contact (name, phone_number, email) and address an agent sent on create, update or
 * complete, as the closed `FulfillmentDetails` object; NULL when none was sent. Personal data,
 * erased with the buyer contact (docs/personal-data.md, `eraseBuyerContact`). Owner:
 * src/checkout/checkout-session.repository.ts.
 */
export class CheckoutFulfillmentDetails1764000001200 implements MigrationInterface {
  name = 'CheckoutFulfillmentDetails1764000001200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE checkout_sessions ADD COLUMN fulfillment_details jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE checkout_sessions DROP COLUMN fulfillment_details`);
  }
}
