import { PaymentsService } from '../../src/payments/payments.service';
import { createMandate } from '../factories/mandate.factory';
import { insertToken } from '../factories/payment-fixtures';
import {
  completeWithToken,
  listTeaAndBiscuits,
  openTeaSession,
} from '../factories/tea-checkout.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/** One ₹925 tea checkout (tea-checkout.factory.ts). */
const SESSION_PAISE = 92_500;
const DAY_MS = 86_400_000;

/**
 * A checkout's complete sends pay()'s locks (the buyer agent, the mandate) and its read of the day's
 * spend behind the session's and the token's locks, in one round trip
 * (PaymentsService.sendPayerLocks, docs/architecture.md "Round trips"). The daily cap must hold as
 * it did when pay() sent them itself: the spend is read once the buyer's lock is held, for the
 * payment's own IST day.
 */
describe('complete: the payer’s locks sent behind the token’s', () => {
  let t: TestApp;
  const cap = { original: 0 };

  beforeAll(async () => {
    t = await startApp({ rail: 'sandbox' });
    cap.original = t.config.dailyCapPaise;
  });
  afterEach(() => {
    jest.restoreAllMocks();
    t.clock.reset();
    t.config.dailyCapPaise = cap.original;
  });
  afterAll(() => t.close());

  /** A buyer of its own (so no other test's spend counts), the offers listed, a mandate. */
  async function freshBuyer(): Promise<{ ws: SeededWorkspace; mandateId: string }> {
    const ws = await seedWorkspace(t);
    await listTeaAndBiscuits(t, ws);
    const mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    return { ws, mandateId };
  }

  /** A session with its token, ready to complete. */
  async function payable(ws: SeededWorkspace, mandateId: string) {
    const sessionId = await openTeaSession(t, ws);
    const token = await insertToken(t, ws, { sessionId, mandateId });
    return { sessionId, token };
  }

  function complete(ws: SeededWorkspace, p: { sessionId: string; token: string }) {
    return completeWithToken(t, ws, p.sessionId, p.token);
  }

  async function intentsOf(ws: SeededWorkspace) {
    return t.db.query<{ status: string; decline_code: string | null }[]>(
      `SELECT status, decline_code FROM payment_intents WHERE buyer_agent_id = $1 ORDER BY created_at`,
      [ws.buyer.id],
    );
  }

  async function committedToday(ws: SeededWorkspace): Promise<number> {
    const [row] = await t.db.query<{ committed: number }[]>(
      `SELECT COALESCE(SUM(committed_paise), 0)::int AS committed FROM buyer_daily_spend
        WHERE buyer_agent_id = $1 AND day = (($2::timestamptz AT TIME ZONE 'Asia/Kolkata')::date)`,
      [ws.buyer.id, t.clock.now()],
    );
    return row.committed;
  }

  it('holds the daily cap when one buyer’s completes race: exactly those that fit settle', async () => {
    const { ws, mandateId } = await freshBuyer();
    t.config.dailyCapPaise = 3 * SESSION_PAISE; // three of the six fit, to the paisa
    const sessions = await Promise.all(Array.from({ length: 6 }, () => payable(ws, mandateId)));

    const answers = await Promise.all(sessions.map((s) => complete(ws, s)));

    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    const statuses = answers.map((a) => a.body.status as string).sort();
    expect(statuses).toEqual([
      'completed',
      'completed',
      'completed',
      'ready_for_payment',
      'ready_for_payment',
      'ready_for_payment',
    ]);
    const intents = await intentsOf(ws);
    expect(intents.filter((i) => i.status === 'settled')).toHaveLength(3);
    expect(intents.filter((i) => i.status === 'declined').map((i) => i.decline_code)).toEqual([
      'daily_cap_exceeded',
      'daily_cap_exceeded',
      'daily_cap_exceeded',
    ]);
    expect(await committedToday(ws)).toBe(3 * SESSION_PAISE);
  });

  it('declines one paisa over the cap and settles exactly at it', async () => {
    const { ws, mandateId } = await freshBuyer();
    t.config.dailyCapPaise = 2 * SESSION_PAISE - 1;
    expect((await complete(ws, await payable(ws, mandateId))).body.status).toBe('completed');
    const over = await complete(ws, await payable(ws, mandateId));
    expect(over.body.status).toBe('ready_for_payment');
    t.config.dailyCapPaise = 2 * SESSION_PAISE;
    expect((await complete(ws, await payable(ws, mandateId))).body.status).toBe('completed');
    expect((await intentsOf(ws)).map((i) => i.decline_code)).toEqual([
      null,
      'daily_cap_exceeded',
      null,
    ]);
  });

  it('reads the spend of the payment’s own day when the day turned after the locks were sent', async () => {
    // Yesterday (IST) the buyer spent the whole cap.
    t.clock.advance(-DAY_MS);
    const { ws, mandateId } = await freshBuyer();
    t.config.dailyCapPaise = SESSION_PAISE;
    expect((await complete(ws, await payable(ws, mandateId))).body.status).toBe('completed');
    t.clock.reset();
    // Today's complete, whose locks read yesterday's spend (as if sent a moment before midnight):
    // pay() must not use it, and reads today's under the buyer's lock.
    const payments = t.app.get(PaymentsService);
    const send = payments.sendPayerLocks.bind(payments);
    const sent = jest
      .spyOn(payments, 'sendPayerLocks')
      .mockImplementation((tokenId, now) => send(tokenId, new Date(now.getTime() - DAY_MS)));
    const today = await complete(ws, await payable(ws, mandateId));
    expect(sent).toHaveBeenCalledTimes(1);
    expect(today.status).toBe(200);
    expect(today.body.status).toBe('completed');
    expect((await intentsOf(ws)).map((i) => i.status)).toEqual(['settled', 'settled']);
    expect(await committedToday(ws)).toBe(SESSION_PAISE);
  });
});
