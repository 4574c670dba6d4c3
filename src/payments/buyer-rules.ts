import type { Mandate } from '../mandates/mandate.entity';

export type DeclineCode =
  | 'token_revoked'
  | 'mandate_not_active'
  | 'mandate_kind_mismatch'
  | 'mandate_expired'
  | 'mandate_cap_exceeded'
  | 'seller_not_allowed'
  | 'daily_cap_exceeded';

export interface RuleInput {
  /**
   * The mandate the payment draws on; null when none is drawn because the person on the hosted
   * payment page authorised this one payment themselves (PayAuthority 'person_on_page'). The
   * mandate rules (status, validity, per-payment cap, seller list) then do not apply; the rules
   * of the buyer agent itself (token, daily cap) still do.
   */
  mandate: Mandate | null;
  /** The delegated token the payment draws on, if any (checkout payments). */
  token?: { id: string; status: string } | null;
  amountPaise: number;
  sellerAgentId: string;
  now: Date;
  /**
   * The payment is a seller's scheduled charge (src/recurring): it may draw only on a recurring
   * (UPI AutoPay) mandate, and a recurring mandate pays nothing else.
   */
  recurringCharge?: boolean;
  /** What this buyer agent already committed today (settled + awaiting approval). */
  spentTodayPaise: number;
  dailyCapPaise: number;
}

export interface Decline {
  code: DeclineCode;
  reason: string;
}

/** The buyer's spending rules, pure: null when the payment may proceed. Order = most basic first. */
export function evaluateBuyerRules(r: RuleInput): Decline | null {
  if (r.token && r.token.status === 'revoked') {
    return { code: 'token_revoked', reason: `Delegated token ${r.token.id} was revoked` };
  }
  const decline = r.mandate ? mandateDecline(r.mandate, r) : null;
  if (decline) {
    return decline;
  }
  if (r.spentTodayPaise + r.amountPaise > r.dailyCapPaise) {
    return {
      code: 'daily_cap_exceeded',
      reason: `The buyer's daily spending cap of ${r.dailyCapPaise} paise would be exceeded`,
    };
  }
  return null;
}

/** The rules of the mandate a payment draws on, in evaluateBuyerRules' order. */
function mandateDecline(mandate: Mandate, r: RuleInput): Decline | null {
  if ((mandate.kind === 'recurring') !== (r.recurringCharge === true)) {
    return {
      code: 'mandate_kind_mismatch',
      reason:
        mandate.kind === 'recurring'
          ? `Mandate ${mandate.id} is a recurring (AutoPay) mandate: only its sellers' scheduled charges draw on it`
          : `Mandate ${mandate.id} is not a recurring mandate; a scheduled charge needs one`,
    };
  }
  if (mandate.status !== 'active') {
    return { code: 'mandate_not_active', reason: `Mandate ${mandate.id} is ${mandate.status}` };
  }
  if (r.now < mandate.validFrom || r.now >= mandate.validUntil) {
    return {
      code: 'mandate_expired',
      reason: `Mandate ${mandate.id} is outside its validity window`,
    };
  }
  if (r.amountPaise > mandate.perPaymentCapPaise) {
    return {
      code: 'mandate_cap_exceeded',
      reason: `Amount is above the mandate's per-payment cap of ${mandate.perPaymentCapPaise} paise`,
    };
  }
  if (mandate.payeeAgentIds && !mandate.payeeAgentIds.includes(r.sellerAgentId)) {
    return {
      code: 'seller_not_allowed',
      reason: `Seller ${r.sellerAgentId} is not on the mandate's seller list`,
    };
  }
  return null;
}

/**
 * The Indian calendar day (UTC+05:30 all year) of an instant, YYYY-MM-DD, the daily cap's day: the
 * same as the database's ist_day(), which files each intent's amount under its day.
 */
export function indianDay(at: Date): string {
  return new Date(at.getTime() + 330 * 60_000).toISOString().slice(0, 10);
}
