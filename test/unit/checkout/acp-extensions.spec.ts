import { ValidationPipe } from '@nestjs/common';

import { VALIDATION_PIPE_OPTIONS } from '../../../src/app.setup';
import { addressChanged, checkCompleteFulfillment } from '../../../src/checkout/checkout-input';
import { mergeItems, OfferFacts, priceLines } from '../../../src/checkout/checkout-pricing';
import type { CheckoutSession } from '../../../src/checkout/checkout-session.entity';
import { flattenSelection } from '../../../src/checkout/dto/checkout-request.parts';
import { CompleteCheckoutSessionDto } from '../../../src/checkout/dto/complete-checkout-session.dto';
import { CreateCheckoutSessionDto } from '../../../src/checkout/dto/create-checkout-session.dto';
import { UpdateCheckoutSessionDto } from '../../../src/checkout/dto/update-checkout-session.dto';
import { AppError } from '../../../src/common/errors/app-error';
import { adjustmentStatus } from '../../../src/orders/order.mapper';

/** The accepted ACP extensions (docs/acp.md "Accepted extensions"), below HTTP. */
const pipe = new ValidationPipe(VALIDATION_PIPE_OPTIONS);
const validate = (metatype: new () => object, body: unknown) =>
  pipe.transform(body, { type: 'body', metatype });

async function refusal(metatype: new () => object, body: unknown): Promise<AppError> {
  try {
    await validate(metatype, body);
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a refusal');
}

const address = {
  name: 'Asha Rao',
  line_one: '12 MG Road',
  city: 'Bengaluru',
  state: 'KA',
  country: 'IN',
  postal_code: '560001',
};

const suggested = (amount: number) => ({
  amount,
  source: { feed_id: 'feed_1', feed_update_id: 'upd_1', channel: 'api' },
  observed_at: '2026-05-20T14:35:00Z',
});

describe('fulfillment_details (ACP PR #200)', () => {
  const payment = {
    handler_id: 'svc_upi_mandate',
    instrument: { type: 'svc_mandate', credential: { type: 'spt', token: 'vt_1' } },
  };

  it('is accepted on complete with contact details and an address', async () => {
    const dto = (await validate(CompleteCheckoutSessionDto, {
      payment_data: payment,
      fulfillment_details: { name: 'Asha', phone_number: '+919812345678', email: 'a@example.in' },
    })) as CompleteCheckoutSessionDto;
    expect(dto.fulfillment_details).toMatchObject({ name: 'Asha', email: 'a@example.in' });
    await expect(
      validate(CompleteCheckoutSessionDto, {
        payment_data: payment,
        fulfillment_details: { address },
      }),
    ).resolves.toBeDefined();
  });

  it.each([
    [{ email: 'not-an-email' }, '$.fulfillment_details.email', 'invalid'],
    [{ nickname: 'x' }, '$.fulfillment_details.nickname', 'invalid'],
    [{ name: null }, '$.fulfillment_details.name', 'invalid'],
    [
      { address: { ...address, country: 'IND' } },
      '$.fulfillment_details.address.country',
      'invalid',
    ],
    [{ address: { name: 'A' } }, '$.fulfillment_details.address.line_one', 'missing'],
    ['Asha', '$.fulfillment_details', 'invalid'],
  ])('refuses %j with 400 at its JSONPath', async (details, param, code) => {
    const err = await refusal(CompleteCheckoutSessionDto, {
      payment_data: payment,
      fulfillment_details: details,
    });
    expect(err).toMatchObject({ status: 400, param });
    expect([code, 'invalid', 'missing']).toContain(err.code);
  });

  it('is checked the same way on create and update', async () => {
    const err = await refusal(CreateCheckoutSessionDto, {
      line_items: [{ id: 'sku' }],
      currency: 'inr',
      capabilities: {},
      fulfillment_details: { email: 'nope' },
    });
    expect(err).toMatchObject({ status: 400, param: '$.fulfillment_details.email' });
    await expect(
      validate(UpdateCheckoutSessionDto, { fulfillment_details: { name: 'Asha', address } }),
    ).resolves.toBeDefined();
  });

  it('compares addresses by content, ignoring case and spacing', () => {
    expect(addressChanged(address, undefined)).toBe(false);
    expect(addressChanged(address, { ...address })).toBe(false);
    expect(addressChanged(address, { ...address, line_one: ' 12  mg road ' })).toBe(false);
    expect(addressChanged(address, { ...address, postal_code: '560002' })).toBe(true);
    expect(addressChanged(address, { ...address, line_two: 'Flat 4' })).toBe(true);
  });

  it('never conflicts on a digitally delivered session (no address was priced)', () => {
    const session = { id: 'cs_1', lineItems: [] } as unknown as CheckoutSession;
    expect(() => checkCompleteFulfillment(session, { address })).not.toThrow();
    expect(() => checkCompleteFulfillment(session, { name: 'Asha' })).not.toThrow();
    expect(() => checkCompleteFulfillment(session, undefined)).not.toThrow();
  });
});

describe('suggested_price (ACP PR #201)', () => {
  const offers = new Map<string, OfferFacts>([
    ['sku_tea', { sku: 'sku_tea', name: 'Tea', unitPaise: 45_000, category: 'food', active: true }],
  ]);

  it('is accepted on create items and validated', async () => {
    await expect(
      validate(CreateCheckoutSessionDto, {
        line_items: [{ id: 'sku_tea', suggested_price: suggested(40_000) }],
        currency: 'inr',
        capabilities: {},
      }),
    ).resolves.toBeDefined();
    const missingSource = await refusal(CreateCheckoutSessionDto, {
      line_items: [
        { id: 'sku_tea', suggested_price: { amount: 1, observed_at: '2026-05-20T14:35:00Z' } },
      ],
      currency: 'inr',
      capabilities: {},
    });
    expect(missingSource).toMatchObject({
      status: 400,
      param: '$.line_items[0].suggested_price.source',
    });
    const fraction = await refusal(CreateCheckoutSessionDto, {
      line_items: [{ id: 'sku_tea', suggested_price: { ...suggested(1), amount: 1.5 } }],
      currency: 'inr',
      capabilities: {},
    });
    expect(fraction).toMatchObject({ param: '$.line_items[0].suggested_price.amount' });
    const badTime = await refusal(CreateCheckoutSessionDto, {
      line_items: [
        { id: 'sku_tea', suggested_price: { ...suggested(1), observed_at: 'yesterday' } },
      ],
      currency: 'inr',
      capabilities: {},
    });
    expect(badTime).toMatchObject({ param: '$.line_items[0].suggested_price.observed_at' });
  });

  it('prices at the published offer and adds an info message when it differs', () => {
    const priced = priceLines(
      mergeItems([{ id: 'sku_tea', suggested_price: { amount: 40_000 } }]),
      offers,
      [],
      'Chai Co',
    );
    expect(priced.lines[0].unit_paise).toBe(45_000);
    expect(priced.status).toBe('ready_for_payment');
    expect(priced.messages).toEqual([
      expect.objectContaining({
        type: 'info',
        param: '$.line_items[0].suggested_price.amount',
        content_type: 'plain',
        content: expect.stringContaining('₹450') as string,
      }),
    ]);
    expect(priced.messages[0]).not.toHaveProperty('code');
  });

  it('adds nothing when the suggested price is the published one', () => {
    const priced = priceLines(
      mergeItems([{ id: 'sku_tea', suggested_price: { amount: 45_000 } }]),
      offers,
      [],
      'Chai Co',
    );
    expect(priced.messages).toEqual([]);
    expect(priced.lines[0].unit_paise).toBe(45_000);
  });

  it('names the item position of the suggestion when duplicates are merged', () => {
    const priced = priceLines(
      mergeItems([{ id: 'sku_tea' }, { id: 'sku_tea', suggested_price: { amount: 1 } }]),
      offers,
      [],
      'Chai Co',
    );
    expect(priced.lines[0].quantity).toBe(2);
    expect(priced.messages[0]).toMatchObject({ param: '$.line_items[1].suggested_price.amount' });
  });
});

describe('nested selected_fulfillment_options (ACP MCP example)', () => {
  const flat = { type: 'digital', option_id: 'fo_digital', item_ids: ['li_1'] };
  const nested = { type: 'digital', digital: { option_id: 'fo_digital', item_ids: ['li_1'] } };

  it('flattens only the nested element', () => {
    expect(flattenSelection(nested)).toEqual(flat);
    expect(flattenSelection(flat)).toBe(flat);
    expect(flattenSelection({ ...flat, digital: {} })).toEqual({ ...flat, digital: {} });
    expect(flattenSelection({ type: 'digital', shipping: {} })).toEqual({
      type: 'digital',
      shipping: {},
    });
    expect(flattenSelection('x')).toBe('x');
  });

  it('validates both shapes to the same flat selection', async () => {
    const a = (await validate(UpdateCheckoutSessionDto, {
      selected_fulfillment_options: [flat],
    })) as UpdateCheckoutSessionDto;
    const b = (await validate(UpdateCheckoutSessionDto, {
      selected_fulfillment_options: [nested],
    })) as UpdateCheckoutSessionDto;
    expect({ ...b.selected_fulfillment_options![0] }).toEqual(flat);
    expect({ ...a.selected_fulfillment_options![0] }).toEqual(flat);
  });

  it('refuses a mix of both shapes and a broken nested element', async () => {
    const mixed = await refusal(UpdateCheckoutSessionDto, {
      selected_fulfillment_options: [{ ...flat, digital: { option_id: 'x', item_ids: [] } }],
    });
    expect(mixed).toMatchObject({
      status: 400,
      param: '$.selected_fulfillment_options[0].digital',
    });
    const broken = await refusal(UpdateCheckoutSessionDto, {
      selected_fulfillment_options: [{ type: 'digital', digital: { option_id: 'fo_digital' } }],
    });
    expect(broken).toMatchObject({
      status: 400,
      param: '$.selected_fulfillment_options[0].item_ids',
    });
    const notObject = await refusal(UpdateCheckoutSessionDto, {
      selected_fulfillment_options: ['fo_digital'],
    });
    expect(notObject).toMatchObject({ status: 400 });
  });
});

describe('open order enums (ACP PR #232)', () => {
  it('passes an adjustment status we do not map on as it is', () => {
    expect(adjustmentStatus('succeeded')).toBe('completed');
    expect(adjustmentStatus('some_future_status')).toBe('some_future_status');
  });
});
