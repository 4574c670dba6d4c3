import { ConfigError, loadConfig } from '../../../src/config/app.config';
import {
  RailRefundLimits,
  refundabilityOf,
  refundRefusal,
} from '../../../src/refunds/refund-limits';

/** Refund limits as pure rules (docs/gateway.md "Refund limits"); the e2e suite is refund-limits.e2e-spec. */
describe('refund limits', () => {
  const gateway: RailRefundLimits = {
    rail: 'gateway',
    minimumPaise: 100,
    maximumPaise: null,
    partialAllowed: true,
  };
  const ask = (limits: RailRefundLimits, leftPaise: number, requestedPaise: number) =>
    refundRefusal(limits, { amountPaise: 40_000, leftPaise, requestedPaise, defaulted: false });

  it('takes the minimum and everything left, refuses below the minimum and above what is left', () => {
    expect(ask(gateway, 40_000, 100)).toBeNull();
    expect(ask(gateway, 40_000, 40_000)).toBeNull();
    expect(ask(gateway, 40_000, 99)?.code).toBe('refund_below_minimum');
    expect(ask(gateway, 40_000, 40_001)?.code).toBe('refund_exceeds_amount');
    expect(ask(gateway, 0, 100)?.code).toBe('refund_exceeds_amount');
  });

  it('names the limits in rupees', () => {
    expect(ask(gateway, 40_000, 50)?.message).toBe(
      'A refund on the payment gateway is at least ₹1.00; ₹0.50 is less.',
    );
    expect(ask(gateway, 12_345, 20_000)?.message).toContain('₹123.45');
    expect(
      refundRefusal(gateway, {
        amountPaise: 40_000,
        leftPaise: 50,
        requestedPaise: 50,
        defaulted: true,
      })?.message,
    ).toBe(
      'The ₹0.50 left of this payment is less than the smallest refund the payment gateway makes (₹1.00), so it cannot be refunded on this rail.',
    );
  });

  it('refuses above a maximum and partial refunds where the rail allows neither', () => {
    const capped = { ...gateway, maximumPaise: 10_000 };
    expect(ask(capped, 40_000, 10_000)).toBeNull();
    expect(ask(capped, 40_000, 10_001)?.code).toBe('refund_above_maximum');
    const whole = { ...gateway, partialAllowed: false };
    expect(ask(whole, 40_000, 40_000)).toBeNull();
    expect(ask(whole, 40_000, 20_000)?.code).toBe('partial_refund_not_allowed');
    expect(
      refundabilityOf(whole, { status: 'settled', amountPaise: 40_000, committedPaise: 100 }),
    ).toMatchObject({ refundablePaise: 0, leftPaise: 39_900 });
  });

  it('shows what is refundable and why not', () => {
    const of = (status: string, committedPaise: number) =>
      refundabilityOf(gateway, { status, amountPaise: 40_000, committedPaise });
    expect(of('settled', 0)).toEqual({
      leftPaise: 40_000,
      refundablePaise: 40_000,
      minimumPaise: 100,
      maximumPaise: null,
      notRefundableReason: null,
    });
    expect(of('settled', 39_950)).toMatchObject({
      leftPaise: 50,
      refundablePaise: 0,
      notRefundableReason: expect.stringContaining('₹0.50 left'),
    });
    expect(of('settled', 39_900)).toMatchObject({
      refundablePaise: 100,
      notRefundableReason: null,
    });
    expect(of('settled', 40_000).notRefundableReason).toMatch(/^Nothing is left to refund/);
    expect(of('processing', 0)).toMatchObject({ leftPaise: 0, refundablePaise: 0 });
  });

  it('reads the gateway limits from the configuration, ₹1.00 and no maximum by default', () => {
    const env = {
      RAIL: 'gateway',
      GATEWAY_API_URL: 'http://127.0.0.1:4010',
      GATEWAY_KEY_ID: 'rzp_test_abc123',
      GATEWAY_KEY_SECRET: 'key-secret-value-1',
      GATEWAY_WEBHOOK_SECRET: 'webhook-secret-value-2',
    };
    expect(loadConfig(env).gateway?.refundLimits).toEqual({
      minimumPaise: 100,
      maximumPaise: null,
    });
    expect(
      loadConfig({ ...env, GATEWAY_REFUND_MIN_PAISE: '500', GATEWAY_REFUND_MAX_PAISE: '5000000' })
        .gateway?.refundLimits,
    ).toEqual({ minimumPaise: 500, maximumPaise: 5_000_000 });
    expect(() =>
      loadConfig({ ...env, GATEWAY_REFUND_MIN_PAISE: '500', GATEWAY_REFUND_MAX_PAISE: '100' }),
    ).toThrow(ConfigError);
  });
});
