import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { RateLimiter } from '../../src/common/rate-limit/rate-limiter.service';
import { MCP_MAX_BATCH_MESSAGES } from '../../src/mcp/mcp-batch';
import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { seedWorkspace } from '../support/seed';

/**
 * JSON-RPC batches on /mcp count per message against the per-credential rate limit (docs/security.md "Rate
 * limits", src/mcp/mcp-batch.ts): the MCP door and the REST door share one budget; a batch that
 * does not fit what is left is refused whole (429, Retry-After, nothing runs); a batch over the
 * cap is refused whole (400, JSON-RPC -32600) and runs nothing.
 */
describe('MCP batches against the per-credential rate limit', () => {
  const BUDGET = 20;
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({
      rateLimitCredentialPerSecond: BUDGET,
      // Twenty batches at once on a loaded machine: a count must not fail open because Redis
      // answered late (the limiter's default timeout is 250 ms; rate-limit.e2e-spec).
      rateLimitRedisTimeoutMs: 5_000,
    });
    // The budget is per second; a one-minute window keeps each sequence below inside one window
    // however slow the machine, so the counts are exact. Limits and counting are unchanged.
    t.get(RateLimiter).policies.credential.windowMs = 60_000;
  });
  afterAll(() => t.close());

  interface RpcReply {
    jsonrpc: '2.0';
    id: number | string | null;
    result?: { isError?: boolean; structuredContent?: Record<string, unknown> };
    error?: { code: number; message: string };
  }

  const toolCall = (id: number, name: string, args: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const whoamiBatch = (n: number) => Array.from({ length: n }, (_, i) => toolCall(i + 1, 'whoami'));

  const mcp = (credential: string, body: unknown) =>
    request(t.url)
      .post('/mcp')
      .set({
        ...bearer(credential),
        Accept: 'application/json, text/event-stream',
        'Content-Type': 'application/json',
      })
      .send(body as object);
  const rest = (credential: string) =>
    request(t.url).get('/v1/pay/sellers').set(bearer(credential));

  /** Tool results in an MCP answer (a batch answers an array). */
  const results = (res: request.Response): RpcReply[] =>
    res.status === 200 ? (Array.isArray(res.body) ? res.body : [res.body]) : [];

  it('20 batches of 100 tools/call run nothing: each is refused whole as over the cap, counted once, and the budget then answers 429', async () => {
    const ws = await seedWorkspace(t);
    const batches = await Promise.all(
      Array.from({ length: 20 }, () => mcp(ws.seller.credential, whoamiBatch(100))),
    );
    for (const res of batches) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(res.body.error.message).toContain(`at most ${MCP_MAX_BATCH_MESSAGES} messages`);
    }
    expect(batches.flatMap(results)).toHaveLength(0);
    // Twenty requests used the budget of twenty: the next call is refused.
    const next = await mcp(ws.seller.credential, toolCall(1, 'whoami'));
    expect(next.status).toBe(429);
    expect(Number(next.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('20 batches of 10 tools/call sent at once run no more calls than the budget; the rest are 429 with Retry-After', async () => {
    const ws = await seedWorkspace(t);
    const batches = await Promise.all(
      Array.from({ length: 20 }, () =>
        mcp(ws.seller.credential, whoamiBatch(MCP_MAX_BATCH_MESSAGES)),
      ),
    );
    const ran = batches.filter((r) => r.status === 200);
    const refused = batches.filter((r) => r.status === 429);
    // Whole batches only: a batch that fits what is left runs entirely, one that does not, not at all.
    expect(ran).toHaveLength(BUDGET / MCP_MAX_BATCH_MESSAGES);
    expect(refused).toHaveLength(20 - ran.length);
    for (const res of ran) {
      expect(results(res)).toHaveLength(MCP_MAX_BATCH_MESSAGES);
    }
    expect(batches.flatMap(results)).toHaveLength(BUDGET);
    for (const res of refused) {
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.body.error).toMatchObject({
        type: 'rate_limit_exceeded',
        code: 'too_many_requests',
      });
    }
  });

  it('a batch within the budget works: every call answered, each counted', async () => {
    const ws = await seedWorkspace(t);
    const res = await mcp(ws.seller.credential, whoamiBatch(MCP_MAX_BATCH_MESSAGES));
    expect(res.status).toBe(200);
    const replies = results(res);
    expect(replies.map((r) => r.id).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: MCP_MAX_BATCH_MESSAGES }, (_, i) => i + 1),
    );
    for (const r of replies) {
      expect(r.error).toBeUndefined();
      expect(r.result?.isError).toBeFalsy();
      expect(r.result?.structuredContent).toMatchObject({ agent_id: ws.seller.id });
    }
    expect(res.headers['ratelimit-limit']).toBe(String(BUDGET));
    expect(res.headers['ratelimit-remaining']).toBe(String(BUDGET - MCP_MAX_BATCH_MESSAGES));
  });

  it('REST calls and MCP calls of one credential share one budget, both ways', async () => {
    const ws = await seedWorkspace(t);
    const batch = await mcp(ws.seller.credential, whoamiBatch(MCP_MAX_BATCH_MESSAGES));
    expect(batch.status).toBe(200);
    expect(batch.headers['ratelimit-remaining']).toBe(String(BUDGET - MCP_MAX_BATCH_MESSAGES));
    for (let left = BUDGET - MCP_MAX_BATCH_MESSAGES - 1; left >= 0; left--) {
      const res = await rest(ws.seller.credential);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-remaining']).toBe(String(left));
    }
    expect((await rest(ws.seller.credential)).status).toBe(429);

    // The other way: the buyer spends its budget on REST, then MCP is refused.
    for (let i = 0; i < BUDGET; i++) {
      expect((await rest(ws.buyer.credential)).status).toBe(200);
    }
    const single = await mcp(ws.buyer.credential, toolCall(1, 'whoami'));
    expect(single.status).toBe(429);
    expect(Number(single.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a batch larger than what is left is refused whole with 429 and Retry-After: none of its calls runs', async () => {
    const ws = await seedWorkspace(t);
    const mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    // One seller request (the quote) spent here.
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 50_000,
    });
    expect(paid.intent.status).toBe('settled');
    // Spend the seller's budget down to 5 left.
    let remaining = BUDGET;
    while (remaining > 5) {
      const res = await rest(ws.seller.credential);
      expect(res.status).toBe(200);
      remaining = Number(res.headers['ratelimit-remaining']);
    }
    expect(remaining).toBe(5);
    const refunds = Array.from({ length: MCP_MAX_BATCH_MESSAGES }, (_, i) =>
      toolCall(i + 1, 'issue_refund', {
        intent_id: paid.intent.id,
        amount_paise: 100,
        idempotency_key: randomUUID(),
      }),
    );
    const res = await mcp(ws.seller.credential, refunds);
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['ratelimit-remaining']).toBe('0');
    const [{ n }] = await t.db.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM refunds WHERE intent_id = $1',
      [paid.intent.id],
    );
    expect(n).toBe(0);
  });
});
