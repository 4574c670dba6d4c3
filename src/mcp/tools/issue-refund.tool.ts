import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';

import { canonicalJson } from '../../common/canonical-json';
import { Clock } from '../../common/clock';
import { sha256Hex } from '../../common/crypto/secrets';
import { AppError } from '../../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { Tx } from '../../database/tx';
import type { RefundResponse } from '../../refunds/dto/refund.response';
import { RefundsService } from '../../refunds/refunds.service';
import { mcpErrors } from '../mcp.errors';
import { McpRefundRequestRepository } from '../mcp-refund-request.repository';
import { McpTool, McpToolContext, McpToolError } from '../mcp-tool';
import { WRITES } from './tool-annotations';

const input = z.strictObject({
  intent_id: z
    .string()
    .regex(/^pi_[A-Za-z0-9]{1,64}$/, { error: 'must be a payment intent id (pi_…)' })
    .describe('The settled payment to refund (pi_…); the caller must be its seller agent.'),
  amount_paise: z
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe(
      "Paise to refund (a positive integer, at least the rail's smallest refund: 100 = ₹1.00 on the payment gateway, 1 on the sandbox). Default: everything not yet refunded or waiting for approval.",
    ),
  reason: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Why, in words; shown to the person who approves (at most 200 characters).'),
  idempotency_key: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      'Any unique string (e.g. a UUID). Repeating a call with the same key and arguments returns the same refund instead of asking another.',
    ),
});

const output = z.object({
  id: z.string().describe('The refund (rf_…)'),
  object: z.literal('refund'),
  intent_id: z.string(),
  status: z
    .enum(['pending_approval', 'succeeded', 'denied', 'expired', 'failed'])
    .describe('pending_approval until a person in the seller workspace decides'),
  amount_paise: z.number().int(),
  currency: z.string(),
  reason: z.string().nullable(),
  seller_agent_id: z.string(),
  buyer_agent_id: z.string(),
  approval_id: z.string().nullable().describe('The approval a person answers in the app'),
  rail_reference: z.string().nullable(),
  failure_code: z.string().nullable(),
  failure_reason: z.string().nullable(),
  created_at: z.string(),
  decided_at: z.string().nullable(),
  succeeded_at: z.string().nullable(),
  approval_url: z.string().describe('Where a person in the seller workspace approves or denies it'),
  next_step: z.string().describe('What happens next, in words'),
  replayed: z
    .boolean()
    .describe('True when an earlier call with this idempotency_key created the refund'),
});

type Input = z.output<typeof input>;
type Output = z.output<typeof output>;

/**
 * Asks a refund (same use case as POST /v1/pay/intents/{id}/refunds). It never moves money: the
 * refund waits for a person in the seller's workspace to approve it in the app (docs/seller-surface.md "Seller
 * surface").
 */
@Injectable()
export class IssueRefundTool implements McpTool<typeof input, typeof output> {
  readonly name = 'issue_refund';
  readonly title = 'Ask a refund';
  readonly description =
    'Seller agent: ask a full or partial refund of a settled payment you received. The refund is created ' +
    'with status pending_approval and is paid out only after a person in your workspace approves it in the ' +
    'app (approval_url). Pass idempotency_key to make retries safe.';
  readonly inputSchema = input;
  readonly outputSchema = output;
  // Not idempotent without a key; never destructive (a person still has to approve).
  readonly annotations = WRITES;

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly refunds: RefundsService,
    private readonly requests: McpRefundRequestRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async call(args: Input, { caller }: McpToolContext): Promise<Output> {
    try {
      return await this.tx.run(async () => {
        const key = args.idempotency_key;
        if (key === undefined) {
          return this.view(await this.request(args, caller), false);
        }
        const hash = sha256Hex(
          canonicalJson({
            intent_id: args.intent_id,
            amount_paise: args.amount_paise ?? null,
            reason: args.reason ?? null,
          }),
        );
        if (await this.requests.claim(caller.id, key, hash, this.clock.now())) {
          const refund = await this.request(args, caller);
          await this.requests.setRefund(caller.id, key, refund.id);
          return this.view(refund, false);
        }
        const earlier = await this.requests.find(caller.id, key);
        if (!earlier?.refundId || earlier.requestHash !== hash) {
          throw mcpErrors.idempotencyKeyReused();
        }
        return this.view(await this.refunds.getForParty(caller.id, earlier.refundId), true);
      });
    } catch (err) {
      throw toToolError(err);
    }
  }

  private request(args: Input, caller: McpToolContext['caller']): Promise<RefundResponse> {
    return this.refunds.requestRefund(caller, args.intent_id, {
      amountPaise: args.amount_paise,
      reason: args.reason,
    });
  }

  private view(refund: RefundResponse, replayed: boolean): Output {
    const approvalUrl = `${this.config.appUrl}/approvals`;
    // Field by field: the output schema is closed, so a field added to RefundResponse must not
    // leak into structuredContent unannounced.
    return {
      id: refund.id,
      object: 'refund',
      intent_id: refund.intent_id,
      status: refund.status as Output['status'],
      amount_paise: refund.amount_paise,
      currency: refund.currency,
      reason: refund.reason,
      seller_agent_id: refund.seller_agent_id,
      buyer_agent_id: refund.buyer_agent_id,
      approval_id: refund.approval_id,
      rail_reference: refund.rail_reference,
      failure_code: refund.failure_code,
      failure_reason: refund.failure_reason,
      created_at: refund.created_at,
      decided_at: refund.decided_at,
      succeeded_at: refund.succeeded_at,
      approval_url: approvalUrl,
      next_step: nextStep(refund.status, approvalUrl),
      replayed,
    };
  }
}

function nextStep(status: string, approvalUrl: string): string {
  switch (status) {
    case 'pending_approval':
      return `Waiting for a person in the seller workspace to approve it at ${approvalUrl}; nothing is refunded until then.`;
    case 'succeeded':
      return 'A person approved it and the buyer has been credited.';
    case 'denied':
      return 'A person denied it; nothing was refunded.';
    case 'expired':
      return 'Nobody approved it in time; nothing was refunded. Ask again if it is still due.';
    default:
      return 'A person approved it but the credit failed; see failure_code and failure_reason.';
  }
}

/** Refund errors without a field (unknown intent, not the seller, not settled) are about intent_id. */
function toToolError(err: unknown): unknown {
  if (err instanceof AppError && err.status < 500 && err.param === undefined) {
    return new McpToolError(err.code, err.message, 'intent_id');
  }
  return err;
}
