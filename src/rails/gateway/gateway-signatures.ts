import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The gateway's two MACs (docs/gateway-simulator.md "Signatures"), both hex HMAC-SHA256:
 *   payment signature = HMAC(`${order_id}|${payment_id}`, key secret) — proves a checkout result;
 *   webhook signature = HMAC(raw body bytes, webhook secret) — header `X-Gateway-Signature`;
 *   payment link callback = HMAC(`${link_id}|${reference_id}|${status}|${payment_id}`, key secret).
 * Verification is constant-time; a signature of the wrong length or not hex is simply false.
 */

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

function hmacHex(data: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(data).digest('hex');
}

function equalHex(expectedHex: string, candidate: unknown): boolean {
  if (typeof candidate !== 'string' || !HEX_SHA256.test(candidate)) {
    return false;
  }
  const a = Buffer.from(expectedHex, 'hex');
  const b = Buffer.from(candidate, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function paymentSignature(orderId: string, paymentId: string, keySecret: string): string {
  return hmacHex(`${orderId}|${paymentId}`, keySecret);
}

export function verifyPaymentSignature(
  orderId: string,
  paymentId: string,
  signature: string,
  keySecret: string,
): boolean {
  return equalHex(paymentSignature(orderId, paymentId, keySecret), signature);
}

/** Signature on a payment link's callback: HMAC(`${link_id}|${reference_id}|${status}|${payment_id}`). */
export function paymentLinkSignature(
  linkId: string,
  referenceId: string,
  status: string,
  paymentId: string,
  keySecret: string,
): string {
  return hmacHex(`${linkId}|${referenceId}|${status}|${paymentId}`, keySecret);
}

export function verifyPaymentLinkSignature(
  fields: { linkId: string; referenceId: string; status: string; paymentId: string },
  signature: string,
  keySecret: string,
): boolean {
  const expected = paymentLinkSignature(
    fields.linkId,
    fields.referenceId,
    fields.status,
    fields.paymentId,
    keySecret,
  );
  return equalHex(expected, signature);
}

/** Signs the exact bytes sent; callers must verify over the raw body, never re-serialised JSON. */
export function webhookSignature(rawBody: string | Buffer, webhookSecret: string): string {
  return hmacHex(rawBody, webhookSecret);
}

export function verifyWebhookSignature(
  rawBody: string | Buffer,
  signature: string | undefined | null,
  webhookSecret: string,
): boolean {
  return equalHex(webhookSignature(rawBody, webhookSecret), signature);
}
