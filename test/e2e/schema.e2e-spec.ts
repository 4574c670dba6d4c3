import { CheckoutSession } from '../../src/checkout/checkout-session.entity';
import { newId } from '../../src/common/ids';
import { paiseFromSql } from '../../src/common/money';
import { DelegatedToken } from '../../src/delegate-payment/delegated-token.entity';
import { gatewayTransferSql } from '../../src/payments/rail-transfer.repository';
import { payFreeFormQuote } from '../factories/intent.factory';
import { insertMandate, insertToken } from '../factories/payment-fixtures';
import { createCheckoutSession } from '../factories/session.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Migration 1763700001000-Integrity: every new constraint refuses a violating row written
 * straight into the database, and the new indexes exist.
 */
describe('schema integrity', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let intentId: string;
  let receiptId: string;
  let sessionId: string;
  let tokenId: string;
  let refundId: string;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    const mandateId = await insertMandate(t, ws);
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 5_000,
    });
    intentId = paid.intent.id;
    receiptId = paid.intent.receipt_id!;
    sessionId = (await createCheckoutSession(t, ws)).id;
    tokenId = await insertToken(t, ws, { sessionId, mandateId });
    refundId = newId('rf');
    await t.db.query(
      `INSERT INTO refunds (id, intent_id, seller_workspace_id, seller_agent_id, buyer_agent_id, amount_paise, currency,
                            status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 1000, 'INR', 'pending_approval', now(), now())`,
      [refundId, intentId, ws.workspaceId, ws.seller.id, ws.buyer.id],
    );
  });
  afterAll(() => t.close());

  /** Inserts a copy of an existing row with some columns changed (the rest stays valid). */
  const insertLike = (table: string, id: string, changes: Record<string, unknown>) =>
    t.db.query(
      `INSERT INTO ${table}
       SELECT * FROM jsonb_populate_record(NULL::${table}, (SELECT to_jsonb(x) || $2::jsonb FROM ${table} x WHERE id = $1))`,
      [id, JSON.stringify(changes)],
    );

  const violation = (code: string, constraint: string) =>
    expect.objectContaining({ code, constraint });

  it('accepts a valid copy (so the refusals below are the constraints at work)', async () => {
    await insertLike('checkout_sessions', sessionId, { id: newId('cs') });
    await insertLike('approvals', await anApproval(), { id: newId('apr') });
  });

  async function anApproval(): Promise<string> {
    const id = newId('apr');
    await t.db.query(
      `INSERT INTO approvals (id, workspace_id, kind, subject_id, amount_paise, summary, status, expires_at)
       VALUES ($1, $2, 'payment', $3, 300000, 'test', 'denied', now() + interval '1 hour')`,
      [id, ws.workspaceId, newId('pi')],
    );
    return id;
  }

  describe('CHECK constraints', () => {
    it.each([0, -1])('refuses an approval of %d paise', async (amount) => {
      await expect(
        t.db.query(
          `INSERT INTO approvals (id, workspace_id, kind, subject_id, amount_paise, summary, status, expires_at)
           VALUES ($1, $2, 'payment', $3, $4, 'test', 'pending', now() + interval '1 hour')`,
          [newId('apr'), ws.workspaceId, newId('pi'), amount],
        ),
      ).rejects.toEqual(violation('23514', 'approvals_amount_paise_chk'));
    });

    it.each(['open', 'complete', 'COMPLETED', ''])(
      'refuses checkout session status %j',
      async (status) => {
        await expect(
          insertLike('checkout_sessions', sessionId, { id: newId('cs'), status }),
        ).rejects.toEqual(violation('23514', 'checkout_sessions_status_chk'));
      },
    );

    it.each([
      ['payment_intents', () => intentId, { token_id: null, receipt_id: null, status: 'declined' }],
      ['refunds', () => refundId, {}],
      ['checkout_sessions', () => sessionId, {}],
      ['delegated_tokens', () => tokenId, {}],
    ])('spells currency one way in %s', async (table, id, extra) => {
      for (const currency of ['inr', 'Inr', 'INRR', 'IN']) {
        await expect(
          insertLike(table, id(), { ...extra, id: newId('x'), currency }),
        ).rejects.toEqual(violation('23514', `${table}_currency_chk`));
      }
    });

    it('stores ACP rows upper case and reads them back in the wire spelling', async () => {
      const rows: { currency: string }[] = await t.db.query(
        `SELECT currency FROM checkout_sessions WHERE id = $1 UNION ALL
         SELECT currency FROM delegated_tokens WHERE id = $2 UNION ALL
         SELECT currency FROM payment_intents WHERE id = $3`,
        [sessionId, tokenId, intentId],
      );
      expect(rows).toEqual([{ currency: 'INR' }, { currency: 'INR' }, { currency: 'INR' }]);
      expect(
        (await t.db.getRepository(CheckoutSession).findOneByOrFail({ id: sessionId })).currency,
      ).toBe('inr');
      expect(
        (await t.db.getRepository(DelegatedToken).findOneByOrFail({ id: tokenId })).currency,
      ).toBe('inr');
    });
  });

  describe('foreign keys', () => {
    it('refuses a checkout session pointing at an unknown intent', async () => {
      await expect(
        insertLike('checkout_sessions', sessionId, { id: newId('cs'), intent_id: 'pi_missing' }),
      ).rejects.toEqual(violation('23503', 'checkout_sessions_intent_id_fkey'));
      await insertLike('checkout_sessions', sessionId, { id: newId('cs'), intent_id: intentId });
    });

    it('refuses a rail transfer for an unknown refund', async () => {
      const insert = (refund: string) =>
        t.db.query(
          `INSERT INTO rail_transfers (id, intent_id, direction, refund_id, amount_paise, status, reference)
           VALUES ($1, $2, 'credit', $3, 1000, 'succeeded', 'ref')`,
          [newId('trf'), intentId, refund],
        );
      await expect(insert('rf_missing')).rejects.toEqual(
        violation('23503', 'rail_transfers_refund_id_fkey'),
      );
      await insert(refundId);
    });

    it('refuses an intent pointing at a receipt (chain) that does not exist', async () => {
      await expect(
        t.db.query('UPDATE payment_intents SET receipt_id = $2 WHERE id = $1', [
          intentId,
          'rcp_missing',
        ]),
      ).rejects.toEqual(violation('23503', 'payment_intents_receipt_id_fkey'));
      await expect(
        insertLike('payment_intents', intentId, {
          id: newId('pi'),
          token_id: null,
          status: 'declined',
          receipt_id: 'rcp_missing',
        }),
      ).rejects.toEqual(violation('23503', 'payment_intents_receipt_id_fkey'));
    });

    it('refuses two intents sharing one receipt', async () => {
      await expect(
        insertLike('payment_intents', intentId, {
          id: newId('pi'),
          token_id: null,
          status: 'declined',
          receipt_id: receiptId,
        }),
      ).rejects.toEqual(violation('23505', 'payment_intents_receipt_id_key'));
    });
  });

  it('has the new indexes', async () => {
    const rows: { indexname: string; indexdef: string }[] = await t.db.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexname = ANY($1) ORDER BY indexname`,
      [
        [
          'approvals_pending_expires_at_idx',
          'payment_intents_receipt_id_key',
          'person_sessions_expires_at_idx',
          'person_sessions_person_id_idx',
        ],
      ],
    );
    expect(rows.map((r) => [r.indexname, r.indexdef.replace(/^.* USING /, '')])).toEqual([
      ['approvals_pending_expires_at_idx', "btree (expires_at) WHERE (status = 'pending'::text)"],
      ['payment_intents_receipt_id_key', 'btree (receipt_id) WHERE (receipt_id IS NOT NULL)'],
      ['person_sessions_expires_at_idx', 'btree (expires_at)'],
      ['person_sessions_person_id_idx', 'btree (person_id)'],
    ]);
    expect(rows.find((r) => r.indexname === 'payment_intents_receipt_id_key')!.indexdef).toMatch(
      /^CREATE UNIQUE INDEX/,
    );
  });

  it("finds a gateway payment's debit and a gateway refund's credit through an index, never a scan", async () => {
    // With sequential scans priced out, a lookup without an index still plans a Seq Scan.
    const plans = await t.db.transaction(async (m) => {
      await m.query('SET LOCAL enable_seqscan = off');
      const plan = async (kind: 'payment' | 'refund') =>
        (await m.query<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${gatewayTransferSql(kind)}`, ['x']))
          .map((r) => r['QUERY PLAN'])
          .join('\n');
      return { payment: await plan('payment'), refund: await plan('refund') };
    });
    expect(plans.payment).toContain('rail_transfers_gateway_payment_id_key');
    expect(plans.refund).toContain('rail_transfers_gateway_refund_id_idx');
    for (const plan of Object.values(plans)) {
      expect(plan).not.toMatch(/Seq Scan on rail_transfers/);
    }
  });

  it('validated the sealed-key CHECK on a database without plaintext keys', async () => {
    const [row] = await t.db.query(
      `SELECT convalidated FROM pg_constraint WHERE conname = 'signing_keys_private_key_sealed_chk'`,
    );
    expect(row).toEqual({ convalidated: true });
  });
});

describe(paiseFromSql.name, () => {
  it('maps what pg returns for sums and bigints to a number', () => {
    expect(paiseFromSql('0')).toBe(0);
    expect(paiseFromSql('123456')).toBe(123_456);
    expect(paiseFromSql(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(paiseFromSql(42)).toBe(42);
    expect(paiseFromSql(42n)).toBe(42);
  });

  it.each(['9007199254740992', '12.5', '', 'abc', '1e400'])('refuses %j', (v) => {
    expect(() => paiseFromSql(v)).toThrow(
      /not a whole number of paise within the safe integer range/,
    );
  });
});
