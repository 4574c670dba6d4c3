import { RequestValidationError } from '../common/errors/validation';
import { formatRupees } from '../common/money';
import type { CheckoutStatus, StoredLineItem, StoredMessage } from './checkout-session.entity';

/** What the agent asked for: ACP `Item` plus our optional `quantity` (docs/acp.md §4, Deviations). */
export interface RequestedItem {
  id: string;
  quantity?: number;
  unit_amount?: number;
  name?: string;
  /** ACP PR #201 (docs/acp.md "Accepted extensions"): the price the agent showed the buyer. */
  suggested_price?: { amount: number };
}

/** One SKU after merging duplicates; `index` is its first position in the request (for `param`). */
export interface WantedLine {
  sku: string;
  quantity: number;
  /** unit_amount the agent sent: only a hint, the published price decides. */
  hint?: number;
  index: number;
  /** suggested_price.amount the agent sent, and the item's position: never changes the price. */
  suggested?: { amount: number; index: number };
}

export interface OfferFacts {
  sku: string;
  name: string;
  unitPaise: number;
  category: string;
  active: boolean;
}

/** A merged line above this quantity blocks payment (quantity_exceeded). */
export const MAX_LINE_QUANTITY = 1000;
/** A session above this total blocks payment (maximum_exceeded); also keeps sums exact in JS numbers. */
export const MAX_SESSION_TOTAL_PAISE = 1_000_000_000_000;
/**
 * Input limits (docs/security.md "Input limits"): a requested quantity above MAX_REQUESTED_QUANTITY is refused
 * with 400 by the DTO, and a priced session above MAX_PRICED_TOTAL_PAISE (₹10 lakh crore, well
 * below 2^53) is refused with 400 here, so no stored amount can lose precision. Between
 * MAX_LINE_QUANTITY / MAX_SESSION_TOTAL_PAISE and these, the session is stored not_ready_for_payment
 * with a recoverable message.
 */
export const MAX_REQUESTED_QUANTITY = 1_000_000;
export const MAX_PRICED_TOTAL_PAISE = 1_000_000_000_000_000;

/** Duplicate ids become one line with the quantities added up (our choice, docs/acp.md §4). */
export function mergeItems(items: RequestedItem[]): WantedLine[] {
  const bySku = new Map<string, WantedLine>();
  items.forEach((item, index) => {
    const quantity = item.quantity ?? 1;
    const existing = bySku.get(item.id);
    const suggested = item.suggested_price && { amount: item.suggested_price.amount, index };
    if (existing) {
      existing.quantity += quantity;
      existing.hint ??= item.unit_amount;
      existing.suggested ??= suggested;
    } else {
      bySku.set(item.id, { sku: item.id, quantity, hint: item.unit_amount, index, suggested });
    }
  });
  return [...bySku.values()];
}

/** The stored lines as a request again (update without line_items re-prices what is there). */
export function wantedFromStored(lines: StoredLineItem[]): WantedLine[] {
  return lines.map((l, index) => ({ sku: l.sku, quantity: l.quantity, index }));
}

export function lineTotal(l: StoredLineItem): number {
  return l.unit_paise * l.quantity;
}

export function sessionTotal(lines: StoredLineItem[]): number {
  return lines.reduce((sum, l) => sum + lineTotal(l), 0);
}

/**
 * Prices every wanted line from the published offer (the caller has already refused SKUs that were
 * never published) and derives the messages and status: a withdrawn offer, a quantity or a total
 * over our limits make the session not_ready_for_payment; a price that differs from the agent's
 * hint or from the previous snapshot adds a price_change warning, and one that differs from a
 * suggested_price an info message. Line ids stay stable per SKU.
 */
export function priceLines(
  wanted: WantedLine[],
  offers: Map<string, OfferFacts>,
  previous: StoredLineItem[],
  sellerName: string,
): { lines: StoredLineItem[]; messages: StoredMessage[]; status: CheckoutStatus } {
  const previousBySku = new Map(previous.map((l) => [l.sku, l]));
  let nextNumber =
    previous.reduce((max, l) => Math.max(max, Number(/^li_(\d+)$/.exec(l.id)?.[1] ?? 0)), 0) + 1;
  const messages: StoredMessage[] = [];
  let exactTotal = 0n;
  const lines = wanted.map((w, i): StoredLineItem => {
    const offer = offers.get(w.sku);
    if (!offer) {
      throw new Error(`priceLines: no offer for ${w.sku}`);
    }
    // Exact (BigInt) so that the refusal itself cannot be fooled by a rounded product.
    exactTotal += BigInt(offer.unitPaise) * BigInt(w.quantity);
    if (exactTotal > BigInt(MAX_PRICED_TOTAL_PAISE)) {
      const param = `$.line_items[${w.index}].quantity`;
      throw new RequestValidationError(
        400,
        'invalid_request',
        'invalid',
        `${param}: the checkout total would exceed ${formatRupees(MAX_PRICED_TOTAL_PAISE)}`,
        param,
      );
    }
    const before = previousBySku.get(w.sku);
    const line: StoredLineItem = {
      id: before?.id ?? `li_${nextNumber++}`,
      sku: offer.sku,
      name: offer.name,
      category: offer.category,
      unit_paise: offer.unitPaise,
      quantity: w.quantity,
    };
    if (w.hint !== undefined && w.hint !== offer.unitPaise) {
      line.hinted_unit_amount = w.hint;
    }
    if (!offer.active) {
      messages.push({
        type: 'error',
        code: 'out_of_stock',
        severity: 'high',
        resolution: 'recoverable',
        param: `$.line_items[${i}]`,
        content_type: 'plain',
        content: `${offer.name} (${offer.sku}) is no longer offered by ${sellerName}. Remove it to continue.`,
      });
    }
    if (w.quantity > MAX_LINE_QUANTITY) {
      messages.push({
        type: 'error',
        code: 'quantity_exceeded',
        severity: 'medium',
        resolution: 'recoverable',
        param: `$.line_items[${i}].quantity`,
        content_type: 'plain',
        content: `At most ${MAX_LINE_QUANTITY} units of ${offer.name} per checkout.`,
      });
    }
    const reference = w.hint ?? before?.unit_paise;
    if (reference !== undefined && reference !== offer.unitPaise) {
      messages.push({
        type: 'warning',
        code: 'price_change',
        severity: 'low',
        param: `$.line_items[${i}].unit_amount`,
        content_type: 'plain',
        content: `${offer.name} costs ${formatRupees(offer.unitPaise)}, not ${formatRupees(reference)}; the published price applies.`,
      });
    }
    if (w.suggested !== undefined && w.suggested.amount !== offer.unitPaise) {
      // ACP PR #201 (docs/acp.md "Accepted extensions"): the published price applies and the agent
      // is told, as the PR's example does, with an info message (MessageInfo has no code).
      messages.push({
        type: 'info',
        severity: 'info',
        param: `$.line_items[${w.suggested.index}].suggested_price.amount`,
        content_type: 'plain',
        content: `The price of ${offer.name} is ${formatRupees(offer.unitPaise)}, not the suggested ${formatRupees(w.suggested.amount)}; the published price applies.`,
      });
    }
    return line;
  });
  if (sessionTotal(lines) > MAX_SESSION_TOTAL_PAISE) {
    messages.push({
      type: 'error',
      code: 'maximum_exceeded',
      severity: 'high',
      resolution: 'recoverable',
      param: '$.totals',
      content_type: 'plain',
      content: `A checkout can total at most ${formatRupees(MAX_SESSION_TOTAL_PAISE)}.`,
    });
  }
  const blocked = messages.some((m) => m.type === 'error');
  return { lines, messages, status: blocked ? 'not_ready_for_payment' : 'ready_for_payment' };
}
