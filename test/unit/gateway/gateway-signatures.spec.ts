import { createHmac } from 'node:crypto';

import fc from 'fast-check';
import {
  validatePaymentVerification,
  validateWebhookSignature,
} from 'razorpay/dist/utils/razorpay-utils';

import {
  paymentLinkSignature,
  paymentSignature,
  verifyPaymentLinkSignature,
  verifyPaymentSignature,
  verifyWebhookSignature,
  webhookSignature,
} from '../../../src/rails/gateway/gateway-signatures';

/**
 * The gateway's MACs (src/rails/gateway/gateway-signatures.ts) agree with the official razorpay
 * package's checks, and our verifiers refuse anything else: another secret, a flipped digit,
 * a wrong length, non-hex, a missing value.
 */
const SECRET = 'key_secret_for_tests';

describe('payment signature', () => {
  it('is hex HMAC-SHA256 of "order_id|payment_id" and passes razorpay validatePaymentVerification', () => {
    const sig = paymentSignature('order_A1b2C3d4E5f6G7', 'pay_Z9y8X7w6V5u4T3', SECRET);
    expect(sig).toBe(
      createHmac('sha256', SECRET).update('order_A1b2C3d4E5f6G7|pay_Z9y8X7w6V5u4T3').digest('hex'),
    );
    expect(
      validatePaymentVerification(
        { order_id: 'order_A1b2C3d4E5f6G7', payment_id: 'pay_Z9y8X7w6V5u4T3' },
        sig,
        SECRET,
      ),
    ).toBe(true);
    expect(verifyPaymentSignature('order_A1b2C3d4E5f6G7', 'pay_Z9y8X7w6V5u4T3', sig, SECRET)).toBe(
      true,
    );
  });

  it('agrees with razorpay for any ids and secrets', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 1 }), (o, p, s) => {
        const sig = paymentSignature(o, p, s);
        return (
          validatePaymentVerification({ order_id: o, payment_id: p }, sig, s) &&
          verifyPaymentSignature(o, p, sig, s)
        );
      }),
    );
  });

  it('refuses another secret, swapped ids, a flipped digit, upper case of another MAC', () => {
    const sig = paymentSignature('order_1', 'pay_1', SECRET);
    expect(verifyPaymentSignature('order_1', 'pay_1', sig, 'other')).toBe(false);
    expect(verifyPaymentSignature('pay_1', 'order_1', sig, SECRET)).toBe(false);
    const flipped = (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1);
    expect(verifyPaymentSignature('order_1', 'pay_1', flipped, SECRET)).toBe(false);
    expect(verifyPaymentSignature('order_1', 'pay_2', sig.toUpperCase(), SECRET)).toBe(false);
  });

  it('is simply false (no throw) for a wrong length, non-hex or a missing value', () => {
    const sig = paymentSignature('order_1', 'pay_1', SECRET);
    for (const bad of [
      '',
      sig.slice(0, 63),
      `${sig}0`,
      `${sig}00`,
      sig.slice(0, 62) + 'zz',
      ' '.repeat(64),
      'é'.repeat(32),
    ]) {
      expect(verifyPaymentSignature('order_1', 'pay_1', bad, SECRET)).toBe(false);
    }
    expect(verifyPaymentSignature('order_1', 'pay_1', undefined as unknown as string, SECRET)).toBe(
      false,
    );
    expect(verifyPaymentSignature('order_1', 'pay_1', 42 as unknown as string, SECRET)).toBe(false);
  });
});

describe('webhook signature', () => {
  const body = '{"entity":"event","event":"payment.captured","payload":{"a":"₹ ü"}}';

  it('is hex HMAC-SHA256 of the raw body and passes razorpay validateWebhookSignature', () => {
    const sig = webhookSignature(body, 'whsec');
    expect(validateWebhookSignature(body, sig, 'whsec')).toBe(true);
    expect(verifyWebhookSignature(body, sig, 'whsec')).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body, 'utf8'), sig, 'whsec')).toBe(true);
  });

  it('refuses a re-serialised body, another secret, a missing or malformed header', () => {
    const sig = webhookSignature(body, 'whsec');
    const reserialised = JSON.stringify(JSON.parse(body), null, 1);
    expect(verifyWebhookSignature(reserialised, sig, 'whsec')).toBe(false);
    expect(verifyWebhookSignature(body, sig, 'other')).toBe(false);
    expect(verifyWebhookSignature(body, undefined, 'whsec')).toBe(false);
    expect(verifyWebhookSignature(body, null, 'whsec')).toBe(false);
    expect(verifyWebhookSignature(body, `sha256=${sig}`, 'whsec')).toBe(false);
    expect(verifyWebhookSignature(body, sig.slice(2), 'whsec')).toBe(false);
  });
});

describe('payment link callback signature', () => {
  it('passes razorpay validatePaymentVerification for payment links', () => {
    const sig = paymentLinkSignature('plink_1', 'ref-1', 'paid', 'pay_1', SECRET);
    expect(
      validatePaymentVerification(
        {
          payment_link_id: 'plink_1',
          payment_link_reference_id: 'ref-1',
          payment_link_status: 'paid',
          payment_id: 'pay_1',
        },
        sig,
        SECRET,
      ),
    ).toBe(true);
    const fields = { linkId: 'plink_1', referenceId: 'ref-1', status: 'paid', paymentId: 'pay_1' };
    expect(verifyPaymentLinkSignature(fields, sig, SECRET)).toBe(true);
    expect(verifyPaymentLinkSignature({ ...fields, status: 'created' }, sig, SECRET)).toBe(false);
  });
});
