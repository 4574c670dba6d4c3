import { ApiProperty } from '@nestjs/swagger';

/**
 * The `data` of the two AutoPay webhook events (docs/recurring.md, docs/webhooks.md), as
 * AutopayNotices (src/recurring/autopay-notices.ts) builds them: documented in the contract as
 * components.schemas (openapi.document.ts lists them as extra models; no route returns them), and
 * test/e2e/autopay-event-schemas.e2e-spec.ts checks real emitted payloads against them.
 */

export class AutopayMessageText {
  @ApiProperty({ description: 'One line, as a notification title' }) title: string;
  @ApiProperty({ description: 'The words the person reads' }) body: string;
}

export class AutopayMandateReference {
  @ApiProperty({ example: 'mdt_…' }) id: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The gateway's UPI mandate reference (RAIL=gateway); null on the sandbox rail",
  })
  upi_mandate_ref: string | null;
}

export class AutopayMerchant {
  @ApiProperty({ example: 'agt_…' }) agent_id: string;
  @ApiProperty({ example: 'Chai Co' }) name: string;
}

export class AutopayBillingCycle {
  @ApiProperty({ type: 'integer', minimum: 0 }) index: number;
  @ApiProperty({ format: 'date-time' }) start: string;
  @ApiProperty({ format: 'date-time' }) end: string;
}

export class AutopayAction {
  @ApiProperty({ format: 'uri', description: "The person's page" }) url: string;
  @ApiProperty({ example: 'POST /v1/pay/mandates/mdt_…/charges/rch_…/opt-out' }) api: string;
}

export class AutopayPage {
  @ApiProperty({ format: 'uri' }) url: string;
}

/** Event `recurring.pre_debit_notice`: sent when a charge is scheduled, at least 24 h before its debit. */
export class AutopayPreDebitNoticeData {
  @ApiProperty({ example: 'rch_…' }) charge_id: string;
  @ApiProperty({ example: 'mdt_…' }) mandate_id: string;
  @ApiProperty({ type: () => AutopayMandateReference }) mandate_reference: AutopayMandateReference;
  @ApiProperty({ example: 'agt_…' }) buyer_agent_id: string;
  @ApiProperty({ example: 'agt_…' }) seller_agent_id: string;
  @ApiProperty({ description: 'Same as merchant.name' }) seller_name: string;
  @ApiProperty({ type: () => AutopayMerchant }) merchant: AutopayMerchant;
  @ApiProperty({ type: 'integer', minimum: 1 }) amount_paise: number;
  @ApiProperty({ enum: ['INR'] }) currency: 'INR';
  @ApiProperty() description: string;
  @ApiProperty({ description: 'Why the seller debits, as the person reads it' }) reason: string;
  @ApiProperty({ format: 'date-time' }) notice_at: string;
  @ApiProperty({ format: 'date-time' }) debit_at: string;
  @ApiProperty({ example: '2 Jun 2027, 8:00 am IST' }) debit_at_ist: string;
  @ApiProperty({ type: () => AutopayBillingCycle }) billing_cycle: AutopayBillingCycle;
  @ApiProperty() first_debit: boolean;
  @ApiProperty({ enum: ['none', 'approval', 'upi_afa', 'with_registration'] })
  authorisation: string;
  @ApiProperty({
    type: String,
    format: 'uri',
    nullable: true,
    description: 'Where the person authorises this debit, when it needs them',
  })
  authorisation_url: string | null;
  @ApiProperty({ type: () => AutopayAction }) opt_out: AutopayAction;
  @ApiProperty({ type: () => AutopayAction, description: 'Earlier name of opt_out' })
  cancel: AutopayAction;
  @ApiProperty({ type: () => AutopayPage }) revoke_mandate: AutopayPage;
  @ApiProperty({ type: () => AutopayMessageText }) notification: AutopayMessageText;
}

export class AutopayReceiptLink {
  @ApiProperty({ example: 'rcpt_…' }) id: string;
  @ApiProperty({ format: 'uri' }) url: string;
}

export class AutopayFailure {
  @ApiProperty({ type: String, nullable: true }) code: string | null;
  @ApiProperty({ type: String, nullable: true }) reason: string | null;
}

export class AutopayRetry {
  @ApiProperty() will_retry: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  next_attempt_at: string | null;
  @ApiProperty() words: string;
}

export class AutopayGrievanceOfficer {
  @ApiProperty() name: string;
  @ApiProperty() email: string;
  @ApiProperty({ type: 'integer' }) response_days: number;
}

export class AutopayGrievance {
  @ApiProperty() words: string;
  @ApiProperty({ format: 'uri' }) url: string;
  @ApiProperty({ type: () => AutopayGrievanceOfficer, nullable: true })
  officer: AutopayGrievanceOfficer | null;
}

/** Event `recurring.post_debit_alert`: sent once after every debit, settled or failed. */
export class AutopayPostDebitAlertData {
  @ApiProperty({ example: 'rch_…' }) charge_id: string;
  @ApiProperty({ enum: ['settled', 'failed'] }) outcome: string;
  @ApiProperty({ enum: ['settled', 'failed', 'declined'] }) status: string;
  @ApiProperty({ example: 'mdt_…' }) mandate_id: string;
  @ApiProperty({ type: () => AutopayMandateReference }) mandate_reference: AutopayMandateReference;
  @ApiProperty({ type: () => AutopayMerchant }) merchant: AutopayMerchant;
  @ApiProperty({ type: 'integer', minimum: 1 }) amount_paise: number;
  @ApiProperty({ enum: ['INR'] }) currency: 'INR';
  @ApiProperty() reason: string;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty() at_ist: string;
  @ApiProperty({ type: String, nullable: true, example: 'pi_…' }) intent_id: string | null;
  @ApiProperty({ type: () => AutopayReceiptLink, nullable: true })
  receipt: AutopayReceiptLink | null;
  @ApiProperty({ type: () => AutopayFailure, nullable: true }) failure: AutopayFailure | null;
  @ApiProperty({ type: () => AutopayRetry, nullable: true }) retry: AutopayRetry | null;
  @ApiProperty({ type: () => AutopayGrievance }) grievance: AutopayGrievance;
  @ApiProperty({ type: () => AutopayMessageText }) notification: AutopayMessageText;
}

/** The delivered body (Standard Webhooks): `{id, type, created_at, data}`. */
export class AutopayPreDebitNoticeEvent {
  @ApiProperty({ example: 'evt_…' }) id: string;
  @ApiProperty({ enum: ['recurring.pre_debit_notice'] }) type: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: () => AutopayPreDebitNoticeData }) data: AutopayPreDebitNoticeData;
}

export class AutopayPostDebitAlertEvent {
  @ApiProperty({ example: 'evt_…' }) id: string;
  @ApiProperty({ enum: ['recurring.post_debit_alert'] }) type: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: () => AutopayPostDebitAlertData }) data: AutopayPostDebitAlertData;
}

/** Registered with the document as extra models (src/openapi/openapi.document.ts). */
export const AUTOPAY_EVENT_SCHEMAS = [AutopayPreDebitNoticeEvent, AutopayPostDebitAlertEvent];
