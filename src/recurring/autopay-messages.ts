import { formatRupees } from '../common/money';
import { formatIst } from '../web/local-time';

/**
 * The words the person reads about a recurring debit (RBI E-Mandate Framework 2026, DOMAIN.md 12a;
 * docs/recurring.md "Recurring payments (UPI AutoPay)"). One function per message, so the webhook event
 * (`notification`), the person's notifications on /app/autopay and the cards there say the same.
 * Pure: no I/O, no clock.
 */

export interface MessageText {
  title: string;
  body: string;
}

/** Ours and, on the gateway rail, the gateway's UPI mandate (token) reference. */
export function mandateReferenceWords(mandateId: string, upiMandateRef: string | null): string {
  return upiMandateRef ? `${mandateId} (UPI mandate ${upiMandateRef})` : mandateId;
}

export interface NoticeFacts {
  sellerName: string;
  amountPaise: number;
  debitAt: Date;
  mandateId: string;
  upiMandateRef: string | null;
  reason: string;
  firstDebit: boolean;
  /** How the person authenticates this debit first, if they must. */
  authorisation: 'none' | 'approval' | 'upi_afa' | 'with_registration';
  optOutUrl: string;
  revokeUrl: string;
}

/** The pre-debit notice: merchant, amount, date and time (IST), mandate reference, reason, opt-out. */
export function preDebitNoticeText(f: NoticeFacts): MessageText {
  const amount = formatRupees(f.amountPaise);
  const when = formatIst(f.debitAt);
  const first = f.firstDebit
    ? f.authorisation === 'with_registration'
      ? ' This is the first debit under the mandate: authorising the mandate authorises it too.'
      : ' This is the first debit under the mandate: nothing is debited until you authorise it.'
    : f.authorisation === 'none'
      ? ''
      : ' Nothing is debited until you authorise it.';
  return {
    title: `AutoPay: ${amount} to ${f.sellerName} on ${when}`,
    body:
      `${f.sellerName} will debit ${amount} on ${when} under your AutoPay mandate ` +
      `${mandateReferenceWords(f.mandateId, f.upiMandateRef)}. Reason: ${f.reason}.${first} ` +
      `To skip only this debit, opt out before then at ${f.optOutUrl}: your mandate stays active. ` +
      `To stop every debit, revoke the mandate at ${f.revokeUrl}.`,
  };
}

export interface GrievanceFacts {
  /** The grievance officer, when configured (GRIEVANCE_OFFICER_*). */
  officer: { name: string; email: string; responseDays: number } | null;
  /** A page that says how to raise a grievance. */
  url: string;
}

/** How to raise a grievance or dispute a debit, in one sentence. */
export function grievanceWords(g: GrievanceFacts): string {
  return g.officer
    ? `To raise a grievance or dispute this debit, write to ${g.officer.name} at ${g.officer.email} (answered within ${g.officer.responseDays} days); see ${g.url}.`
    : `To raise a grievance or dispute this debit, follow ${g.url}.`;
}

export interface RetryFacts {
  willRetry: boolean;
  nextAttemptAt: Date | null;
  words: string;
}

/**
 * A failed recurring debit is never retried by the service: the charge ends, its billing cycle is
 * freed, and the seller may schedule a new debit in the cycle, which needs a new notice ≥ the
 * notice lead time ahead (so not when the cycle ends before that).
 */
export function retryAfterFailure(now: Date, cycleEnd: Date, noticeLeadMs: number): RetryFacts {
  const words =
    now.getTime() + noticeLeadMs < cycleEnd.getTime()
      ? `It will not be retried automatically: nothing more is debited for this charge. The seller may schedule a new debit before this billing cycle ends (${formatIst(cycleEnd)}); you would get a new notice at least ${Math.round(noticeLeadMs / 3_600_000)} hours before it.`
      : 'It will not be retried: nothing more is debited for this charge, and this billing cycle ends before another debit could be announced.';
  return { willRetry: false, nextAttemptAt: null, words };
}

export interface AlertFacts {
  outcome: 'settled' | 'failed';
  sellerName: string;
  amountPaise: number;
  at: Date;
  mandateId: string;
  upiMandateRef: string | null;
  reason: string;
  receipt: { id: string; url: string } | null;
  failureReason: string | null;
  retry: RetryFacts | null;
  grievance: GrievanceFacts;
}

/** The post-debit alert: what was (or was not) debited, the receipt, and how to complain. */
export function postDebitAlertText(f: AlertFacts): MessageText {
  const amount = formatRupees(f.amountPaise);
  const ref = mandateReferenceWords(f.mandateId, f.upiMandateRef);
  const receipt = f.receipt ? ` Receipt ${f.receipt.id}: ${f.receipt.url}.` : '';
  if (f.outcome === 'settled') {
    return {
      title: `AutoPay: ${amount} debited by ${f.sellerName}`,
      body:
        `${amount} was debited by ${f.sellerName} on ${formatIst(f.at)} under your AutoPay mandate ` +
        `${ref}. Reason: ${f.reason}.${receipt} ${grievanceWords(f.grievance)}`,
    };
  }
  return {
    title: `AutoPay: the ${amount} debit by ${f.sellerName} failed`,
    body:
      `The debit of ${amount} by ${f.sellerName} on ${formatIst(f.at)} under your AutoPay mandate ` +
      `${ref} did not go through: ${f.failureReason ?? 'the payment was refused'}. Reason for the debit: ` +
      `${f.reason}. ${f.retry?.words ?? ''}${receipt} ${grievanceWords(f.grievance)}`,
  };
}

export interface PartyClosedFacts {
  sellerName: string;
  amountPaise: number;
  debitAt: Date;
  /** Who closed: the seller, or the buyer's own workspace. */
  side: 'seller' | 'buyer';
}

/**
 * A scheduled debit that will not happen because a party closed their account
 * (docs/architecture.md "Party lifecycle"): the buyer's person reads it with their notifications.
 */
export function partyClosedText(f: PartyClosedFacts): MessageText {
  const amount = formatRupees(f.amountPaise);
  const when = formatIst(f.debitAt);
  return f.side === 'seller'
    ? {
        title: `AutoPay: ${f.sellerName} closed their account`,
        body: `This seller closed their account; the debit of ${amount} on ${when} will not happen. Nothing is debited.`,
      }
    : {
        title: `AutoPay: the ${amount} debit by ${f.sellerName} will not happen`,
        body: `Your account was closed; the debit of ${amount} by ${f.sellerName} on ${when} will not happen. Nothing is debited.`,
      };
}
