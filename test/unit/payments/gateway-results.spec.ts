import type {
  GatewayPayment,
  GatewayRefund,
} from '../../../src/rails/gateway/gateway-client.types';
import { resultOfPayments, resultOfRefund } from '../../../src/rails/gateway/gateway-rail';

/**
 * How the gateway rail reads the gateway's payments and refunds (src/rails/gateway/gateway-rail.ts):
 * only a capture of exactly the expected amount settles; anything in flight is pending (never a
 * guess); failures map to our decline codes.
 */
describe('gateway results', () => {
  const order = { id: 'order_A0000000000001' };
  const payment = (over: Partial<GatewayPayment>): GatewayPayment =>
    ({
      id: 'pay_A0000000000001',
      entity: 'payment',
      amount: 10_000,
      currency: 'INR',
      status: 'captured',
      order_id: order.id,
      method: 'upi',
      error_code: null,
      error_description: null,
      ...over,
    }) as GatewayPayment;

  it('settles a capture of the expected amount, with the payment as reference', () => {
    expect(resultOfPayments([payment({})], order, 10_000)).toEqual({
      status: 'succeeded',
      reference: 'pay_A0000000000001',
      ids: { orderId: order.id, paymentId: 'pay_A0000000000001' },
    });
  });

  it('never settles a capture of another amount: pending, for a person', () => {
    expect(resultOfPayments([payment({ amount: 9_999 })], order, 10_000)?.status).toBe('pending');
  });

  it('a payment still created or authorized is pending; no payment at all is unknown (null)', () => {
    expect(resultOfPayments([payment({ status: 'created' })], order, 10_000)?.status).toBe(
      'pending',
    );
    expect(resultOfPayments([payment({ status: 'authorized' })], order, 10_000)?.status).toBe(
      'pending',
    );
    expect(resultOfPayments([], order, 10_000)).toBeNull();
  });

  it.each([
    ['insufficient_funds', 'insufficient_funds'],
    ['payment_declined', 'mandate_declined_by_bank'],
    ['bank_unavailable', 'bank_unavailable'],
    ['payment_failed', 'payment_failed'],
    [null, 'payment_failed'],
  ])('maps the failure reason %s to %s', (reason, code) => {
    const failed = {
      ...payment({ status: 'failed', error_description: 'no' }),
      error_reason: reason,
    };
    expect(resultOfPayments([failed], order, 10_000)).toMatchObject({
      status: 'failed',
      failureCode: code,
      message: 'no',
    });
  });

  it('a capture wins over earlier failed attempts on the same order', () => {
    const result = resultOfPayments(
      [payment({ id: 'pay_F', status: 'failed' }), payment({ id: 'pay_C' })],
      order,
      10_000,
    );
    expect(result).toMatchObject({ status: 'succeeded', reference: 'pay_C' });
  });

  it('reads a refund: processed succeeded, failed failed, pending pending, with the refund id', () => {
    const refund = (status: GatewayRefund['status']) =>
      ({ id: 'rfnd_A', payment_id: 'pay_A', status }) as GatewayRefund;
    expect(resultOfRefund(refund('processed'))).toMatchObject({
      status: 'succeeded',
      reference: 'rfnd_A',
    });
    expect(resultOfRefund(refund('failed'))).toMatchObject({
      status: 'failed',
      reference: 'rfnd_A',
    });
    expect(resultOfRefund(refund('pending'))).toMatchObject({
      status: 'pending',
      reference: 'rfnd_A',
    });
  });
});
