import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { IsIn, IsInt, IsOptional, IsString, Min } from 'class-validator';

import { AuditLog } from '../../src/common/audit';
import { AcpRoute, Auth, Caller } from '../../src/common/auth/auth.decorators';
import type { AgentPrincipal, ProtocolKeyPrincipal } from '../../src/common/auth/principal';
import { AppError } from '../../src/common/errors/app-error';
import { Idempotent } from '../../src/common/idempotency/idempotent.decorator';
import { randomToken } from '../../src/common/ids';
import { RefusalKeepingWrites, Tx } from '../../src/database/tx';
import { PaymentAttempt } from '../../src/payments/payment-attempt';
import { PaymentsService, railDebitRequest } from '../../src/payments/payments.service';
import { PAYMENT_RAIL, PaymentRail } from '../../src/rails/payment-rail';
import { withoutIdentityNumber } from './no-identity-number';

export class ProbeDto {
  @IsString() note: string;
  @IsOptional() @IsInt() @Min(1) amount?: number;
  @IsOptional() @IsIn(['ok', 'fail4xx', 'fail5xx', 'slow', 'keep4xx']) mode?:
    'ok' | 'fail4xx' | 'fail5xx' | 'slow' | 'keep4xx';
}

/**
 * A minimal protected ACP route used only by the pipeline tests: it writes one audit row (a
 * business write) and can be told to fail with a 4xx or a 5xx, or to take a while, or to refuse
 * with a 409 that keeps its writes (`keep4xx`: a second audit row through `AuditLog`). POST /acp/_probe/alt
 * is the same handler under a second path.
 */
@Controller('acp/_probe')
export class ProbeController {
  constructor(
    private readonly tx: Tx,
    private readonly audit: AuditLog,
  ) {}

  // Two concrete paths on one handler, so the tests can show the idempotency scope includes the path.
  @Post(['/', 'alt'])
  @AcpRoute('merchant')
  @Idempotent()
  async create(@Caller() caller: ProtocolKeyPrincipal, @Body() body: ProbeDto) {
    const id = withoutIdentityNumber(() => `probe_${randomToken(10)}`);
    await this.tx.manager.query(
      `INSERT INTO audit_events (workspace_id, actor_type, actor_id, action, subject_id, data) VALUES ($1, 'protocol_key', $2, 'probe', $3, $4)`,
      [caller.workspaceId, caller.id, id, JSON.stringify({ note: body.note })],
    );
    if (body.mode === 'slow') {
      await new Promise((r) => setTimeout(r, 700));
    }
    if (body.mode === 'fail4xx') {
      throw new AppError(400, 'invalid_request', 'probe_refused', 'refused on purpose');
    }
    if (body.mode === 'fail5xx') {
      throw new Error('boom');
    }
    if (body.mode === 'keep4xx') {
      // A refusal that keeps what was written before it (docs/architecture.md "Transactions").
      await this.audit.record(
        caller.workspaceId,
        { type: 'protocol_key', id: caller.id },
        'probe_kept',
        id,
        {
          note: body.note,
        },
      );
      throw new RefusalKeepingWrites(
        new AppError(409, 'invalid_request', 'probe_kept', 'refused, writes kept'),
      );
    }
    return { id, note: body.note };
  }

  @Get()
  @AcpRoute('merchant')
  get(@Caller() caller: ProtocolKeyPrincipal) {
    return { ok: true, key: caller.id };
  }

  @Post('buyer')
  @HttpCode(200)
  @AcpRoute('buyer')
  @Idempotent()
  buyer() {
    return { ok: true };
  }
}

export class AgentProbeDto {
  @IsString() note: string;
}

/**
 * The /v1 counterpart for agent credentials (no production /v1 route takes one yet): shows the
 * BearerAuthGuard's kind check and that an agent with a registered public key must sign.
 */
@Controller('v1/_probe')
@Auth('agent')
export class AgentProbeController {
  @Get()
  get(@Caller() caller: AgentPrincipal) {
    return { ok: true, agent: caller.id };
  }

  @Post()
  @Idempotent()
  create(@Caller() caller: AgentPrincipal, @Body() body: AgentProbeDto) {
    return { agent: caller.id, note: body.note };
  }
}

export class PayProbeDto {
  @IsString() buyer_agent_id: string;
  @IsString() seller_agent_id: string;
  @IsString() mandate_id: string;
  @IsInt() @Min(1) amount_paise: number;
  @IsIn(['commit', 'roll_back']) then: 'commit' | 'roll_back';
}

/** Thrown inside the probe's transaction to undo a payment that has already settled. */
class RolledBackOnPurpose extends Error {}

/**
 * POST /v1/_probe/pay runs a payment the way the pipeline does (docs/architecture.md "Payment
 * pipeline"): PaymentsService.pay records the intent `processing` in a first transaction, the
 * rail is asked with no transaction open, and the probe then records the answer with
 * PaymentsService.applyDebit inside a second transaction of its own, which it commits, or throws
 * in after the payment settled (`then: 'roll_back'`). Either way it answers 200 with what that
 * second transaction saw just before it ended: the intent, its receipt, and how many outbox rows
 * and chain entries it had written. Used by outbox-rollback.e2e-spec.
 */
@Controller('v1/_probe/pay')
@Auth('api_key')
export class PayProbeController {
  constructor(
    private readonly tx: Tx,
    private readonly moduleRef: ModuleRef,
  ) {}

  @Post()
  @HttpCode(200)
  async pay(@Body() body: PayProbeDto) {
    // PaymentsModule exports it to its importers only; the probe sits in the root test module.
    const payments = this.moduleRef.get(PaymentsService, { strict: false });
    const rail = this.moduleRef.get<PaymentRail>(PAYMENT_RAIL, { strict: false });
    if (this.tx.active) {
      throw new Error('the probe must own the outermost transaction');
    }
    const recorded = await this.tx.run(() =>
      payments.pay(
        PaymentAttempt.start({
          kind: 'quote',
          id: withoutIdentityNumber(() => `qt_probe_${randomToken(10)}`),
        }),
        {
          buyerAgentId: body.buyer_agent_id,
          sellerAgentId: body.seller_agent_id,
          amountPaise: body.amount_paise,
          mandateId: body.mandate_id,
          tokenId: null,
          description: 'rollback probe',
          receiptContext: {},
        },
        { rail: 'caller_applies' },
      ),
    );
    const result = await rail.debit(railDebitRequest(recorded.intent));
    let seen: Record<string, unknown> = {};
    try {
      await this.tx.run(async (m) => {
        const outcome = await payments.applyDebit(
          result,
          PaymentAttempt.ofIntent(recorded.intent.id),
        );
        const { id, receiptId } = outcome?.intent ?? recorded.intent;
        const [inside] = await m.query<{ outbox: number; entries: number; status: string }[]>(
          `SELECT (SELECT count(*)::int FROM outbox_events WHERE subject_id = $1) AS outbox,
                  (SELECT count(*)::int FROM chain_entries WHERE chain_id = $2) AS entries,
                  (SELECT status FROM payment_intents WHERE id = $1) AS status`,
          [id, receiptId],
        );
        seen = {
          recorded: recorded.status,
          outcome: outcome?.status ?? null,
          intent_id: id,
          receipt_id: receiptId,
          inside,
        };
        if (body.then === 'roll_back') {
          throw new RolledBackOnPurpose();
        }
      });
    } catch (err) {
      if (!(err instanceof RolledBackOnPurpose)) {
        throw err;
      }
      return { ...seen, rolled_back: true };
    }
    return { ...seen, rolled_back: false };
  }
}
