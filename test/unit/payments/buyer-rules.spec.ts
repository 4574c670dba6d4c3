import fc from 'fast-check';

import type { Mandate } from '../../../src/mandates/mandate.entity';
import { evaluateBuyerRules, indianDay, RuleInput } from '../../../src/payments/buyer-rules';

const now = new Date('2026-11-22T10:00:00.000Z');

function mandate(over: Partial<Mandate> = {}): Mandate {
  return Object.assign(
    {
      id: 'mdt_1',
      workspaceId: 'ws_1',
      buyerAgentId: 'agt_b',
      kind: 'standing',
      rail: 'upi_reserve_pay',
      billingCycle: null,
      perPaymentCapPaise: 500_000,
      proposedCapPaise: null,
      payeeAgentIds: null,
      validFrom: new Date(now.getTime() - 3600_000),
      validUntil: new Date(now.getTime() + 3600_000),
      status: 'active',
      description: null,
      authorisedBy: 'per_1',
      authorisedAt: now,
      revokedAt: null,
      createdAt: now,
    } satisfies Mandate,
    over,
  );
}

const input = (over: Partial<RuleInput> = {}): RuleInput => ({
  mandate: mandate(),
  amountPaise: 10_000,
  sellerAgentId: 'agt_s',
  now,
  spentTodayPaise: 0,
  dailyCapPaise: 1_000_000,
  ...over,
});

describe('evaluateBuyerRules', () => {
  it('lets a payment inside every rule through', () => {
    expect(evaluateBuyerRules(input())).toBeNull();
  });

  it.each(['pending_authorisation', 'revoked', 'expired'] as const)(
    'refuses a %s mandate',
    (status) => {
      expect(evaluateBuyerRules(input({ mandate: mandate({ status }) }))?.code).toBe(
        'mandate_not_active',
      );
    },
  );

  it('refuses outside the validity window, with validUntil exclusive', () => {
    expect(evaluateBuyerRules(input({ mandate: mandate({ validUntil: now }) }))?.code).toBe(
      'mandate_expired',
    );
    expect(
      evaluateBuyerRules(input({ mandate: mandate({ validFrom: new Date(now.getTime() + 1) }) }))
        ?.code,
    ).toBe('mandate_expired');
  });

  it('allows exactly the cap and refuses one paisa more', () => {
    expect(evaluateBuyerRules(input({ amountPaise: 500_000 }))).toBeNull();
    expect(evaluateBuyerRules(input({ amountPaise: 500_001 }))?.code).toBe('mandate_cap_exceeded');
  });

  it('enforces the seller list when there is one', () => {
    expect(
      evaluateBuyerRules(input({ mandate: mandate({ payeeAgentIds: ['agt_s'] }) })),
    ).toBeNull();
    expect(
      evaluateBuyerRules(input({ mandate: mandate({ payeeAgentIds: ['agt_x'] }) }))?.code,
    ).toBe('seller_not_allowed');
  });

  it('enforces the daily cap including what was already spent', () => {
    expect(evaluateBuyerRules(input({ spentTodayPaise: 990_000, amountPaise: 10_000 }))).toBeNull();
    expect(evaluateBuyerRules(input({ spentTodayPaise: 990_001, amountPaise: 10_000 }))?.code).toBe(
      'daily_cap_exceeded',
    );
  });

  it('never lets an amount above the cap or the daily allowance through (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000_000 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        (amount, spent) => {
          const decline = evaluateBuyerRules(
            input({ amountPaise: amount, spentTodayPaise: spent }),
          );
          const allowed = amount <= 500_000 && spent + amount <= 1_000_000;
          expect(decline === null).toBe(allowed);
        },
      ),
    );
  });
});

describe('indianDay', () => {
  it('starts the day at 00:00 IST (18:30 UTC the previous day)', () => {
    expect(indianDay(new Date('2026-11-22T10:00:00Z'))).toBe('2026-11-22');
    expect(indianDay(new Date('2026-11-21T18:29:59.999Z'))).toBe('2026-11-21');
    expect(indianDay(new Date('2026-11-21T18:30:00Z'))).toBe('2026-11-22');
    expect(indianDay(new Date('2026-11-22T18:29:59.999Z'))).toBe('2026-11-22');
    expect(indianDay(new Date('2026-12-31T18:30:00Z'))).toBe('2027-01-01');
  });
});
