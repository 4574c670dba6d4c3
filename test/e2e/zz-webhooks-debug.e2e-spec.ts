import { newId } from '../../src/common/ids';
import { Tx } from '../../src/database/tx';
import { OutboxService } from '../../src/payments/outbox.service';
import { Sweeper } from '../../src/webhooks/sweeper';
import { startApp } from '../support/app';
import { seedWorkspace } from '../support/seed';
import request from 'supertest';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';

it('debug', async () => {
  const t = await startApp({ webhookDispatchIntervalMs: 50, webhookRetryScheduleMs: [50, 100] });
  const ws = await seedWorkspace(t);
  const r = await request(t.url).post('/v1/webhooks/endpoints').set({ Authorization: `Bearer ${ws.apiKey}` }).send({ url: 'http://127.0.0.1:9/x', event_types: ['*'] });
  await t.get(Tx).run(() => t.get(OutboxService).add({ workspaceId: ws.workspaceId, agentId: ws.seller.id, type: 'intent.settled', subjectId: newId('pi'), data: {} }));
  console.log('sweeper', (t.get(Sweeper) as any).timer !== undefined, [...(t.get(Sweeper) as any).tasks.keys()]);
  await new Promise((r) => setTimeout(r, 1500));
  console.log(await t.db.query('select id, status, attempt_count from webhook_deliveries'));
  console.log(await t.db.query('select * from webhook_attempts'));
  const q = t.app.get<Queue>(getQueueToken('webhooks'));
  console.log(await q.getJobCounts(), (await q.getFailed()).map((j) => j.failedReason));
  await t.close();
});
