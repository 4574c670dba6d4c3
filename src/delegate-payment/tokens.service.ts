import { Inject, Injectable } from '@nestjs/common';

import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { commonErrors } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { DelegatedToken } from './delegated-token.entity';
import { DelegatedTokenRepository, LockedToken } from './delegated-token.repository';
import { tokenErrors } from './tokens.errors';

export interface RedeemRequest {
  tokenId: string;
  checkoutSessionId: string;
  merchantAgentId: string;
  amountPaise: number;
}

export function tokenState(
  t: DelegatedToken,
  now: Date,
): 'usable' | 'used' | 'revoked' | 'expired' {
  if (t.status !== 'usable') {
    return t.status;
  }
  return now >= t.expiresAt ? 'expired' : 'usable';
}

/** Spending and revoking delegated tokens. Minting is DelegatePaymentService. */
@Injectable()
export class TokensService {
  constructor(
    private readonly tx: Tx,
    private readonly tokens: DelegatedTokenRepository,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The token locked and its mandate's status read (not locked: pay() locks the mandate after the
   * buyer agent, in the lock order) by one statement: redeem's first half, for a caller that
   * writes it right behind a statement of its own (docs/architecture.md "Round trips").
   */
  lockForRedeem(tokenId: string): Promise<LockedToken | null> {
    return this.tokens.lockWithMandateStatus(tokenId);
  }

  /**
   * Checks a token against the completing session under a row lock and marks it used. Fifty
   * concurrent completes serialise here: one sees `usable`, the rest see `used`. `locked` is the
   * token's lock when the caller already sent it (lockForRedeem).
   */
  async redeem(
    req: RedeemRequest,
    locked: Promise<LockedToken | null> = this.lockForRedeem(req.tokenId),
  ): Promise<{ token: DelegatedToken }> {
    const found = await locked;
    if (!found) {
      throw tokenErrors.invalid();
    }
    const { token, mandateStatus } = found;
    const now = this.clock.now();
    switch (tokenState(token, now)) {
      case 'revoked':
        throw tokenErrors.revoked();
      case 'used':
        throw tokenErrors.used();
      case 'expired':
        throw tokenErrors.expired();
      case 'usable':
        break;
    }
    if (token.checkoutSessionId !== req.checkoutSessionId) {
      throw tokenErrors.sessionMismatch(
        `This token is for checkout session ${token.checkoutSessionId}, not ${req.checkoutSessionId}`,
      );
    }
    if (token.merchantAgentId !== req.merchantAgentId) {
      throw tokenErrors.sessionMismatch('This token is for another merchant');
    }
    if (mandateStatus === 'pending_authorisation') {
      throw tokenErrors.requiresBuyerReview(
        `${this.config.appUrl}/mandates/${token.mandateId}/authorize`,
      );
    }
    if (req.amountPaise > token.maxAmountPaise) {
      throw tokenErrors.allowanceExceeded(req.amountPaise, token.maxAmountPaise);
    }
    token.status = 'used';
    token.usedAt = now;
    // Under the row lock, nothing in this transaction reads it again: written with the commit's
    // one statement (a rolled-back complete leaves the token usable, as before).
    await this.tokens.markUsedAtCommit(token.id, now);
    return { token };
  }

  /**
   * The person revokes a token in the consent centre; effective on the next complete. A token
   * spent on a payment that still waits for approval (`spentOnWaitingPayment`, which the caller
   * established under this token's lock) is revoked too: the caller declines that payment.
   */
  async revoke(
    workspaceId: string,
    tokenId: string,
    personId: string,
    spentOnWaitingPayment: (token: DelegatedToken) => Promise<boolean> = () =>
      Promise.resolve(false),
  ): Promise<DelegatedToken> {
    return this.tx.run(async () => {
      const token = await this.tokens.lockInWorkspace(workspaceId, tokenId);
      if (!token) {
        throw commonErrors.notFound('token', tokenId);
      }
      if (
        token.status === 'usable' ||
        (token.status === 'used' && (await spentOnWaitingPayment(token)))
      ) {
        const now = this.clock.now();
        token.status = 'revoked';
        token.revokedAt = now;
        await this.tokens.markRevoked(token.id, now);
        await this.audit.record(
          workspaceId,
          { type: 'person', id: personId },
          'token.revoked',
          token.id,
        );
      }
      return token;
    });
  }
}
