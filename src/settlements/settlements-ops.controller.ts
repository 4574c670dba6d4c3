import {
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  Inject,
  Injectable,
  Render,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import type { Request } from 'express';

import { AppError } from '../common/errors/app-error';
import { CredentialRateLimitGuard } from '../common/rate-limit/credential-rate-limit.guard';
import { AppLayout } from '../web/app-layout.service';
import { AppController, CurrentPerson } from '../web/current-person.decorator';
import { NoStoreInterceptor } from '../web/no-store.interceptor';
import { PersonSessionService } from '../web/person-session.service';
import { SessionCookies } from '../web/session-cookies';
import { setPerson, SignedInPerson } from '../web/signed-in-person';
import { OPERATOR_CHECK, OperatorCheck } from './operator-check';
import { SettlementsService } from './settlements.service';

/**
 * Operator pages of this module: a person signed in to the app (session cookie, no
 * Authorization header) whom OPERATOR_CHECK calls an operator. Anyone else gets the app's 404
 * page, so the page cannot be told from a mistyped address. Read-only: no forms.
 */
@Injectable()
export class SettlementsOperatorGuard implements CanActivate {
  constructor(
    private readonly sessions: PersonSessionService,
    private readonly cookies: SessionCookies,
    @Inject(OPERATOR_CHECK) private readonly operators: OperatorCheck,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const person =
      req.headers.authorization === undefined
        ? await this.sessions.resolve(this.cookies.sessionToken(req))
        : null;
    if (!person || !(await this.operators.isOperator(person.personId))) {
      throw new AppError(
        404,
        'invalid_request',
        'not_found',
        'There is no page at this address. Check the link, or start again from the app.',
      );
    }
    setPerson(req, person);
    return true;
  }
}

/**
 * GET /app/ops/settlements: the reconciliation for operators (README "Settlements and
 * reconciliation"): every mismatch (amount, missing, unknown) with both amounts, and the recent
 * settlements with their UTR, fees, tax and how many of their lines disagree.
 */
@AppController()
@UseGuards(SettlementsOperatorGuard, CredentialRateLimitGuard)
@UseInterceptors(NoStoreInterceptor)
@Controller('app/ops/settlements')
export class SettlementsOpsController {
  constructor(
    private readonly settlements: SettlementsService,
    private readonly layout: AppLayout,
  ) {}

  @Get()
  @Render('app/ops-settlements')
  async page(@CurrentPerson() person: SignedInPerson) {
    const [mismatches, settlements] = await Promise.all([
      this.settlements.mismatches(200),
      this.settlements.settlements(50),
    ]);
    return this.layout.page(person, 'Settlements', {
      mismatches: mismatches.map((m) => ({
        id: m.id,
        kind: m.kind,
        mismatch: m.mismatch,
        gatewayEntityId: m.gatewayEntityId,
        intentId: m.intentId,
        reportedPaise: m.amountPaise,
        expectedPaise: m.expectedAmountPaise,
        utr: m.utr,
        settlementId: m.gatewaySettlementId,
      })),
      settlements: settlements.map((s) => ({ ...s, settledAt: s.settledAt.toISOString() })),
    });
  }
}
