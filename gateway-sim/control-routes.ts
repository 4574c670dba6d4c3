import { GatewayEngine } from './engine';
import { badRequest } from './errors';
import { json, Router } from './http';
import { NextOutcome } from './outcomes';
import { RefundMode } from './refunds';
import { InjectionKind } from './settlements';
import { asBody, Body, oneOf, optInt, optStr, optVpa } from './validate';
import { WebhookMode } from './webhooks';

/**
 * The control API (`/__sim/*`, no auth): simulator-only, for tests and demos. Each route is
 * documented in docs/gateway-simulator.md "Control API".
 */
export function registerControlRoutes(router: Router, sim: GatewayEngine): void {
  const { core } = sim;

  router.add('POST', '/__sim/reset', () => {
    sim.reset();
    return json({ reset: true });
  });
  router.add('GET', '/__sim/state', () => json(sim.snapshot()));

  // Outcomes
  router.add('GET', '/__sim/next', () =>
    json({ queued: core.outcomes.queued(), hanging: core.outcomes.hangingCount() }),
  );
  router.add('POST', '/__sim/next', (req) => {
    const body = asBody(req.body);
    const outcome = oneOf(body, 'outcome', [
      'succeed',
      'fail',
      'hang',
    ] as const satisfies readonly NextOutcome[]);
    const delay = optInt(body, 'respond_delay_ms', { min: 0, max: 600_000 }) ?? 0;
    return json({ queued: core.outcomes.pushNext(outcome, delay) });
  });
  router.add('POST', '/__sim/release', (req) => {
    const body = asBody(req.body);
    const outcome =
      body.outcome === undefined ? 'succeed' : oneOf(body, 'outcome', ['succeed', 'fail'] as const);
    return json({ released: core.outcomes.release(outcome) });
  });
  router.add('POST', '/__sim/payments', async (req) => {
    const body = asBody(req.body);
    const outcome =
      body.outcome === undefined ? undefined : oneOf(body, 'outcome', ['succeed', 'fail'] as const);
    const r = await sim.checkoutPay(optStr(body, 'order_id', { max: 40 }) ?? '', {
      outcome,
      vpa: optVpa(body),
    });
    return json(r.body, 200, r.delayMs);
  });

  // Refunds
  router.add('POST', '/__sim/refunds', (req) => {
    const mode = oneOf(asBody(req.body), 'mode', [
      'processed',
      'pending',
      'fail',
    ] as const satisfies readonly RefundMode[]);
    sim.refunds.setMode(mode);
    return json({ mode });
  });
  router.add('POST', '/__sim/refunds/process', (req) => {
    const body = asBody(req.body);
    const status =
      body.status === undefined
        ? 'processed'
        : oneOf(body, 'status', ['processed', 'failed'] as const);
    const refunds = sim.refunds.processPending(
      optStr(body, 'refund_id', { max: 40 }) ?? null,
      status,
    );
    return json({ entity: 'collection', count: refunds.length, items: refunds });
  });

  // Webhooks
  router.add('GET', '/__sim/webhooks', () =>
    json({
      url: core.webhooks.getUrl(),
      mode: core.webhooks.getMode(),
      pending: core.webhooks.pending(),
    }),
  );
  router.add('POST', '/__sim/webhooks', (req) => {
    const body = asBody(req.body);
    if (body.url !== undefined) {
      core.webhooks.setUrl(body.url === null ? null : webhookUrl(body));
    }
    const mode = core.webhooks.setMode(webhookMode(body));
    return json({ url: core.webhooks.getUrl(), mode, pending: core.webhooks.pending() });
  });
  router.add('GET', '/__sim/webhooks/log', () => {
    const log = core.webhooks.deliveryLog();
    return json({
      entity: 'collection',
      count: log.length,
      items: log,
      pending: core.webhooks.pending(),
    });
  });
  router.add('GET', '/__sim/webhooks/events', () => {
    const events = core.webhooks.eventList();
    return json({ entity: 'collection', count: events.length, items: events });
  });
  router.add('POST', '/__sim/webhooks/redeliver', (req) => {
    const id = optStr(asBody(req.body), 'event_id', { max: 40 }) ?? '';
    if (!core.webhooks.redeliver(id)) {
      throw badRequest('No such event', 'event_id');
    }
    return json({ redelivering: id });
  });

  // Clock
  router.add('GET', '/__sim/clock', () => json({ now_ms: core.clock.nowMs() }));
  router.add('POST', '/__sim/clock', (req) => {
    const body = asBody(req.body);
    const nowMs = optInt(body, 'now_ms', { min: 0, max: 8_640_000_000_000 });
    const advance = optInt(body, 'advance_ms', { min: -8_640_000_000_000, max: 8_640_000_000_000 });
    if ((nowMs === undefined) === (advance === undefined)) {
      throw badRequest('Give exactly one of now_ms and advance_ms');
    }
    if (nowMs !== undefined) {
      core.clock.set(nowMs);
    } else {
      core.clock.advance(advance!);
    }
    return json({ now_ms: core.clock.nowMs() });
  });

  // Mandates (tokens) and Reserve Pay blocks: the person's side
  router.add('POST', '/__sim/tokens/authorize', async (req) => {
    const body = asBody(req.body);
    const id = optStr(body, 'order_id', { max: 40 }) ?? optStr(body, 'token_id', { max: 40 });
    if (!id) {
      throw badRequest('Give order_id or token_id', 'order_id');
    }
    const { token, result } = await sim.tokens.authorize(id, {
      approve: body.approve !== false,
      vpa: optVpa(body),
    });
    return json({ token, payment: result.payment, order: result.order });
  });
  router.add('POST', '/__sim/tokens/cancel', (req) => {
    const id = optStr(asBody(req.body), 'token_id', { max: 40 }) ?? '';
    return json(sim.tokens.cancel(null, id));
  });
  router.add('POST', '/__sim/reserve_pay/authorize', (req) => {
    const body = asBody(req.body);
    const id = optStr(body, 'block_id', { max: 40 }) ?? '';
    return json(sim.reserve.authorize(id, { approve: body.approve !== false, vpa: optVpa(body) }));
  });
  router.add('POST', '/__sim/payment_links/pay', async (req) => {
    const body = asBody(req.body);
    const outcome =
      body.outcome === undefined ? 'succeed' : oneOf(body, 'outcome', ['succeed', 'fail'] as const);
    const r = await sim.links.pay(optStr(body, 'link_id', { max: 40 }) ?? '', {
      fail: outcome === 'fail',
      vpa: optVpa(body) ?? null,
    });
    return json({ payment_link: r.link, redirect: r.redirect }, 200, r.respondDelayMs);
  });

  // Settlements
  router.add('POST', '/__sim/settle', () => json({ settlement: sim.settlements.settle() }));
  router.add('POST', '/__sim/settlements/inject', (req) => {
    const body = asBody(req.body);
    const kind = oneOf(body, 'kind', [
      'amount',
      'missing',
      'unknown',
    ] as const satisfies readonly InjectionKind[]);
    const queued = sim.settlements.inject({
      kind,
      paymentId: optStr(body, 'payment_id', { max: 40 }),
      delta: optInt(body, 'delta', { min: -10_000_000, max: 10_000_000 }),
      amount: optInt(body, 'amount', { min: 100 }),
    });
    return json({ queued });
  });
}

function webhookUrl(body: Body): string {
  const url = optStr(body, 'url', { max: 2048 }) ?? '';
  if (!/^https?:\/\//.test(url)) {
    throw badRequest('The url must be an http(s) URL', 'url');
  }
  return url;
}

function webhookMode(body: Body): Partial<WebhookMode> & { flush?: boolean } {
  const out: Partial<WebhookMode> & { flush?: boolean } = {};
  const duplicate = optInt(body, 'duplicate', { min: 0, max: 10 });
  if (duplicate !== undefined) {
    out.duplicate = duplicate;
  }
  for (const key of ['reverse_order', 'hold', 'flush'] as const) {
    if (body[key] !== undefined) {
      if (typeof body[key] !== 'boolean') {
        throw badRequest(`The ${key} must be true or false`, key);
      }
      out[key] = body[key];
    }
  }
  if (body.drop !== undefined) {
    if (typeof body.drop !== 'boolean') {
      out.drop = optInt(body, 'drop', { min: 0, max: 1000 }) ?? false;
    } else {
      out.drop = body.drop;
    }
  }
  return out;
}
