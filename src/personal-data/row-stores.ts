import { apiKeysPersonalRows, workspacesPersonalRows } from '../accounts/accounts.repository';
import { agentsPersonalRows } from '../accounts/agent.repository';
import { approvalsPersonalRows } from '../approvals/approval.repository';
import { breachNoticesPersonalRows } from '../breaches/breach-register.repository';
import { checkoutSessionsPersonalRows } from '../checkout/checkout-session.repository';
import { auditEventsPersonalRows } from '../common/audit.repository';
import { idempotencyRecordsPersonalRows } from '../common/idempotency/idempotency-record.repository';
import type { PersonalRowStore } from '../database/personal-rows';
import { delegatedTokensPersonalRows } from '../delegate-payment/delegated-token.repository';
import { forexDocumentsPersonalRows, forexFilesPersonalRows } from '../forex/forex-file.repository';
import { gatewayCaptureRefundsPersonalRows } from '../gateway/capture-refund.repository';
import { mandatesPersonalRows } from '../mandates/mandate.repository';
import { mandateAmendmentsPersonalRows } from '../mandates/mandate-amendment.repository';
import { outboxEventsPersonalRows } from '../outbox/outbox.repository';
import { paymentIntentsPersonalRows } from '../payments/payment-intent.repository';
import { protocolKeysPersonalRows } from '../protocol-keys/protocol-key.repository';
import { quotesPersonalRows } from '../quotes/quote.repository';
import { recurringChargesPersonalRows } from '../recurring/recurring-charge.repository';
import { refundsPersonalRows } from '../refunds/refund.repository';
import { webhookAttemptsPersonalRows } from '../webhooks/webhook-delivery.repository';
import { webhookEndpointsPersonalRows } from '../webhooks/webhook-endpoint.repository';

/**
 * Each table owner's store (src/database/personal-rows.ts): which rows can be the person's. The
 * map (data-map.ts) says which of their columns erasure walks; a test checks that every table
 * with a walked column has a store here.
 */
export const ROW_STORES: Record<string, PersonalRowStore> = Object.fromEntries(
  [
    agentsPersonalRows,
    apiKeysPersonalRows,
    approvalsPersonalRows,
    auditEventsPersonalRows,
    breachNoticesPersonalRows,
    checkoutSessionsPersonalRows,
    delegatedTokensPersonalRows,
    forexDocumentsPersonalRows,
    forexFilesPersonalRows,
    gatewayCaptureRefundsPersonalRows,
    idempotencyRecordsPersonalRows,
    mandateAmendmentsPersonalRows,
    mandatesPersonalRows,
    outboxEventsPersonalRows,
    paymentIntentsPersonalRows,
    protocolKeysPersonalRows,
    quotesPersonalRows,
    recurringChargesPersonalRows,
    refundsPersonalRows,
    webhookAttemptsPersonalRows,
    webhookEndpointsPersonalRows,
    workspacesPersonalRows,
  ].map((s) => [s.table, s]),
);
