import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startGatewaySimulator } from '../../../gateway-sim';

/** The simulator's optional state file (gateway-sim/store.ts StateFile): durable across restarts. */
describe('gateway simulator state file', () => {
  const keys = { keyId: 'rzp_test_sf', keySecret: 'sf_secret', webhookSecret: 'sf_whsec' };
  const auth = `Basic ${Buffer.from(`${keys.keyId}:${keys.keySecret}`).toString('base64')}`;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-state-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const createOrder = (url: string, key: string) =>
    fetch(`${url}/v1/orders`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ amount: 50_000, currency: 'INR', receipt: 'r1' }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { id: string } }));

  it('keeps orders, payments and idempotency keys across a restart on the same file', async () => {
    const stateFile = join(dir, 'state.json');
    const first = await startGatewaySimulator({ ...keys, stateFile });
    const created = await createOrder(first.url, 'k1');
    expect(created.status).toBe(200);
    await first.control.pay(created.body.id);
    await first.close();

    const second = await startGatewaySimulator({ ...keys, stateFile });
    try {
      const order = await fetch(`${second.url}/v1/orders/${created.body.id}`, {
        headers: { authorization: auth },
      });
      expect(((await order.json()) as { status: string }).status).toBe('paid');
      // The same key replays the stored answer: no second order.
      const again = await createOrder(second.url, 'k1');
      expect(again.body.id).toBe(created.body.id);
      expect(second.control.state().orders).toHaveLength(1);
      expect(second.control.state().payments).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it('without a file, a restart starts empty (the default, as before)', async () => {
    const first = await startGatewaySimulator(keys);
    await createOrder(first.url, 'k1');
    await first.close();
    const second = await startGatewaySimulator(keys);
    try {
      expect(second.control.state().orders).toHaveLength(0);
    } finally {
      await second.close();
    }
  });
});
