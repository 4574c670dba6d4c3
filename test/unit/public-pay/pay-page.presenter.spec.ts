import { translator } from '../../../src/common/i18n/catalogue';
import type {
  HostedCheckoutResponse,
  PublicPayView,
} from '../../../src/public-pay/dto/public-pay.response';
import { payPage, spokenTotal, statusPage } from '../../../src/public-pay/pay-page.presenter';

const en = translator('en');
const hi = translator('hi');

function view(over: Partial<PublicPayView> = {}, status = 'open'): PublicPayView {
  return {
    quote: {
      id: 'qt_test',
      status,
      seller_name: 'Chai Co',
      buyer_name: 'Buyer assistant',
      amount_paise: 350_000,
      expires_at: '2026-11-25T15:57:00.000Z',
      line_items: [{ name: 'Tea', quantity: 1, unit_paise: 350_000, amount_paise: 350_000 }],
    },
    rail: 'gateway',
    mode: 'test',
    payable: true,
    reason: null,
    checkout: null,
    ...over,
  } as unknown as PublicPayView;
}

function checkout(over: Partial<HostedCheckoutResponse> = {}): HostedCheckoutResponse {
  return {
    id: 'hco_test',
    status: 'failed',
    rail: 'gateway',
    intent_id: null,
    payment_reference: null,
    receipt_id: null,
    failure_code: 'quote_canceled',
    failure_reason: 'English words from the API',
    completed_at: null,
    refunds: [],
    ...over,
  } as unknown as HostedCheckoutResponse;
}

const refund = {
  id: 'crf_1',
  status: 'refunding' as const,
  amount_paise: 250_000,
  payment_reference: 'pay_ABC123',
  refund_reference: null,
  reason_code: 'quote_canceled',
  message: 'English words from the API',
  refunded_at: null,
};

/**
 * The pay pages' words are composed from codes in the page's language (docs/languages.md), never
 * the API's English reason, failure_reason or refund message.
 */
describe('pay page presenter', () => {
  it('says the total aloud in each language', () => {
    expect(spokenTotal(en, 350_000)).toBe('Total: 3,500 rupees 00 paise');
    expect(spokenTotal(hi, 350_000)).toBe('कुल: 3,500 रुपये 00 पैसे');
  });

  it('says why a request cannot be paid from its status, and the expiry in IST words', () => {
    const paid = payPage(view({ payable: false, reason: 'English' }, 'paid'), hi);
    expect(paid.reason).toBe('इस भुगतान अनुरोध का भुगतान पहले ही हो चुका है।');
    expect(paid.countdown).toBe(false);
    expect(payPage(view(), en).validUntil).toBe('Valid until 25 Nov 2026, 9:27 pm IST');
    expect(payPage(view(), en).title).toBe('Pay Chai Co');
  });

  it('composes a capture refund from its status, amount, reference and reason code', () => {
    const c = checkout({ refunds: [refund] });
    expect(statusPage(view(), c, {}, en).refunds[0].message).toBe(
      'You were not charged: ₹2,500.00 is being refunded, reference pay_ABC123. The seller canceled this payment request before your payment arrived.',
    );
    const inHindi = statusPage(view(), c, {}, hi);
    expect(inHindi.title).toBe('आपसे पैसा नहीं लिया गया');
    expect(inHindi.refunds[0].message).toBe(
      'आपसे पैसा नहीं लिया गया: ₹2,500.00 का रिफ़ंड हो रहा है, रेफ़रेंस pay_ABC123। आपका भुगतान पहुँचने से पहले विक्रेता ने यह भुगतान अनुरोध रद्द कर दिया था।',
    );
    const done = statusPage(
      view(),
      checkout({ refunds: [{ ...refund, status: 'refunded', reason_code: 'something_new' }] }),
      {},
      en,
    );
    expect(done.refunds[0].message).toContain('₹2,500.00 was refunded to you in full');
    expect(done.refunds[0].message).toContain("The buyer's spending rules did not allow");
  });

  it('says why an attempt failed from its code', () => {
    const words = (over: Partial<HostedCheckoutResponse>, tr = en) =>
      statusPage(view(), checkout(over), {}, tr).failureReason;
    expect(words({ rail: 'sandbox', failure_code: 'payment_failed' })).toContain('simulated');
    expect(words({ failure_code: 'insufficient_funds' })).toBe(
      'The bank did not accept the payment. No money moved; you can try again.',
    );
    expect(words({ status: 'expired', failure_code: 'checkout_expired' }, hi)).toBe(
      'भुगतान होने से पहले इस कोशिश का समय खत्म हो गया। कोई पैसा नहीं कटा।',
    );
    expect(words({ status: 'paid', failure_code: null })).toBe('');
  });

  it('the paid receipt: time in IST words, the method in words', () => {
    const paid = statusPage(
      view({ rail: 'sandbox' }),
      checkout({ status: 'paid', rail: 'sandbox', completed_at: '2026-11-25T15:57:00.000Z' }),
      {},
      hi,
    );
    expect(paid.title).toBe('भुगतान मिल गया');
    expect(paid.paidAt).toMatch(/^25 नव॰ 2026, 9:27 (pm|अपराह्न) IST$/);
    expect(paid.method).toBe('सैंडबॉक्स भुगतान (एक टेस्ट: कोई पैसा नहीं कटा)');
  });
});
