import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { MandatesService } from '../../src/mandates/mandates.service';
import { RecurringChargesService } from '../../src/recurring/recurring-charges.service';
import { bearer } from '../factories/intent.factory';
import { openApiToJsonSchema } from '../support/acp-schema';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The AutoPay webhook events (recurring.pre_debit_notice, recurring.post_debit_alert) as really
 * emitted, checked against their schemas in openapi/openapi.json (AutopayPreDebitNoticeEvent,
 * AutopayPostDebitAlertEvent): every required field there, and nothing the schema does not name
 * (every object is closed for this check), on a settled and on a failed debit.
 */
const KEY = 'openapi.json';

/** additionalProperties: false on every object schema that lists properties. */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) {
    return node.map(closed);
  }
  if (!node || typeof node !== 'object') {
    return node;
  }
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closed(v)]));
  return 'properties' in out ? { additionalProperties: false, ...out } : out;
}

function validator(name: string) {
  const doc = JSON.parse(
    readFileSync(join(__dirname, '..', '..', 'openapi', 'openapi.json'), 'utf8'),
  ) as { components: { schemas: object } };
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(
    closed(openApiToJsonSchema({ components: { schemas: doc.components.schemas } })) as object,
    KEY,
  );
  return ajv.compile({ $ref: `${KEY}#/components/schemas/${name}` });
}

describe('AutoPay webhook events match their schemas in the contract', () => {
  let t: TestApp;
  const HOUR = 3_600_000;
  const ist = (y: number, mo: number, d: number, h: number) =>
    new Date(Date.UTC(y, mo - 1, d, h) - 330 * 60_000);
  const setNow = (at: Date) => {
    t.clock.reset();
    t.clock.advance(at.getTime() - Date.now());
  };

  beforeAll(async () => {
    t = await startApp({ runWorkers: false });
  });
  afterAll(async () => {
    t?.clock.reset();
    await t?.close();
  });

  async function recurringMandate(ws: SeededWorkspace): Promise<string> {
    const res = await request(t.url)
      .post('/v1/pay/mandates')
      .set(bearer(ws.buyer.credential))
      .send({
        kind: 'recurring',
        recurring: { billing_cycle: 'monthly' },
        per_payment_cap_paise: 500_000,
        payee_agent_ids: [ws.seller.id],
        valid_until: new Date(t.clock.now().getTime() + 300 * 24 * HOUR).toISOString(),
        description: 'Tea plan',
      })
      .expect(201);
    await t.get(MandatesService).authorise(ws.workspaceId, res.body.id, ws.personId);
    return res.body.id as string;
  }

  /** The stored event bodies (what is delivered: {id, type, created_at, data}) for a charge. */
  async function events(type: string, chargeId: string): Promise<unknown[]> {
    const rows = await t.db.query<{ payload: unknown }[]>(
      `SELECT payload FROM outbox_events WHERE type = $1 AND subject_id = $2`,
      [type, chargeId],
    );
    return rows.map((r) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload));
  }

  /** Schedules, approves and debits a charge of `amountPaise`; its id and final status. */
  async function debit(month: number, amountPaise: number): Promise<[string, string]> {
    setNow(ist(2027, month, 1, 8));
    const ws = await seedWorkspace(t);
    const mandateId = await recurringMandate(ws);
    const charge = await request(t.url)
      .post(`/v1/pay/mandates/${mandateId}/charges`)
      .set(bearer(ws.seller.credential))
      .send({ description: 'Monthly tea box', amount_paise: amountPaise, reason: 'Tea' })
      .expect(201);
    const id = charge.body.id as string;
    const [row] = await t.db.query<{ approval_id: string }[]>(
      `SELECT approval_id FROM recurring_charges WHERE id = $1`,
      [id],
    );
    await t.get(ApprovalsService).decide(ws.workspaceId, row.approval_id, ws.personId, 'approved');
    setNow(ist(2027, month, 2, 9));
    const svc = t.get(RecurringChargesService);
    const deadline = Date.now() + 10_000;
    for (;;) {
      await svc.attempt(id);
      const [{ status }] = await t.db.query<{ status: string }[]>(
        `SELECT status FROM recurring_charges WHERE id = $1`,
        [id],
      );
      if (!['awaiting_authorisation', 'scheduled', 'processing'].includes(status)) {
        return [id, status];
      }
      if (Date.now() > deadline) {
        throw new Error(`charge ${id} stuck in ${status}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('a settled debit: its pre-debit notice and its post-debit alert', async () => {
    const [id, status] = await debit(6, 25_000);
    expect(status).toBe('settled');
    const notice = validator('AutopayPreDebitNoticeEvent');
    const alert = validator('AutopayPostDebitAlertEvent');
    const [n] = await events('recurring.pre_debit_notice', id);
    const [a] = await events('recurring.post_debit_alert', id);
    expect(notice(n) ? [] : notice.errors).toEqual([]);
    expect(alert(a) ? [] : alert.errors).toEqual([]);
    expect(a).toMatchObject({ data: { outcome: 'settled', receipt: { id: expect.any(String) } } });
  });

  it('a failed debit: the alert with failure and retry', async () => {
    // The sandbox bank refuses amounts ending in 51 paise (insufficient funds).
    const [id, status] = await debit(7, 10_051);
    expect(status).toBe('failed');
    const alert = validator('AutopayPostDebitAlertEvent');
    const [a] = await events('recurring.post_debit_alert', id);
    expect(alert(a) ? [] : alert.errors).toEqual([]);
    expect(a).toMatchObject({
      data: { outcome: 'failed', receipt: null, retry: { will_retry: false } },
    });
    // The schema is not trivially open: a field it does not name fails it.
    expect(alert({ ...(a as object), extra: 1 })).toBe(false);
  });
});
