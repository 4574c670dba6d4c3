import { redactedJson, SHOWN_ONCE } from '../../../src/common/idempotency/redact-secrets';

describe('redactedJson (the text an Idempotency-Key answer is stored as)', () => {
  it('replaces issued credentials at any depth and keeps everything else byte for byte', () => {
    const body = {
      id: 'ak_1',
      key: 'sk_live_abc',
      nested: { secret: 'whsec_xyz', credential: 'agc_1', other: 'sk_not_a_secret_field' },
      list: [{ key: 'acpk_2' }, { key: 'not-a-secret' }],
      created_at: new Date('2026-11-28T10:00:00.000Z'),
      absent: undefined,
    };
    const text = redactedJson(body);
    expect(JSON.parse(text)).toEqual({
      id: 'ak_1',
      key: SHOWN_ONCE,
      nested: { secret: SHOWN_ONCE, credential: SHOWN_ONCE, other: 'sk_not_a_secret_field' },
      list: [{ key: SHOWN_ONCE }, { key: 'not-a-secret' }],
      created_at: '2026-11-28T10:00:00.000Z',
    });
    const plain = { a: 1, b: [true, null, 'x'], c: { d: '₹2,000' } };
    expect(redactedJson(plain)).toBe(JSON.stringify(plain));
  });

  it('applies toJSON before deciding, as the response itself was written', () => {
    const wrapped = { toJSON: () => ({ secret: 'whsec_q' }) };
    expect(JSON.parse(redactedJson({ endpoint: wrapped }))).toEqual({
      endpoint: { secret: SHOWN_ONCE },
    });
  });
});
