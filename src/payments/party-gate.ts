import type { EntityManager } from 'typeorm';

import { partyStatesOf } from '../accounts/accounts.repository';
import { mayTransact, PartyState, unavailableReason } from '../accounts/party-lifecycle';
import type { AppError } from '../common/errors/app-error';
import { paymentErrors } from './payments.errors';

/**
 * The payment pipeline's one lifecycle gate (docs/architecture.md "Party lifecycle"): the error
 * when the seller's or the buyer's agent or workspace may not transact
 * (src/accounts/party-lifecycle.ts mayTransact), the seller's side first; null when both may.
 * pay() throws it with the states its lock statement read (PaymentsService.pay); a page or a
 * create that offers a payment beforehand asks partyRefusalOf.
 */
export function partyRefusal(buyer: PartyState, seller: PartyState): AppError | null {
  if (!mayTransact(seller)) {
    return paymentErrors.sellerUnavailable(unavailableReason('seller', seller) as string);
  }
  if (!mayTransact(buyer)) {
    return paymentErrors.buyerUnavailable(unavailableReason('buyer', buyer) as string);
  }
  return null;
}

/**
 * The gate asked beforehand, read without locks (pay() decides again under its own): for a
 * payment between these agents; null when both sides may transact. An unknown agent is refused
 * as its side (an agent row is never deleted while a payment can name it).
 */
export async function partyRefusalOf(
  m: EntityManager,
  buyerAgentId: string | null,
  sellerAgentId: string,
): Promise<AppError | null> {
  const ids = buyerAgentId ? [buyerAgentId, sellerAgentId] : [sellerAgentId];
  const states = await partyStatesOf(m, ids);
  const gone: PartyState = { agentStatus: 'disabled', workspaceStatus: 'closed' };
  const active: PartyState = { agentStatus: 'active', workspaceStatus: 'active' };
  return partyRefusal(
    buyerAgentId ? (states.get(buyerAgentId) ?? gone) : active,
    states.get(sellerAgentId) ?? gone,
  );
}

/**
 * The gate's seller side alone, for a create that offers a payment before any buyer is known (an
 * ACP or UCP checkout session, src/checkout/checkout.service.ts createSession): the
 * `seller_unavailable` error, or null when the seller may be paid.
 */
export function sellerRefusal(seller: PartyState): AppError | null {
  return partyRefusal({ agentStatus: 'active', workspaceStatus: 'active' }, seller);
}
