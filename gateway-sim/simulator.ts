import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

import type { GatewayReserveBlock, GatewayToken } from '../src/rails/gateway/gateway-client.types';
import { registerApiRoutes } from './api-routes';
import { SimClock } from './clock';
import { registerControlRoutes } from './control-routes';
import { sleep } from './core';
import { GatewayEngine } from './engine';
import { SimError } from './errors';
import {
  basicAuthOk,
  IdempotencyStore,
  parseJsonBody,
  readBody,
  Router,
  SavedIdempotency,
  send,
  SimReply,
  SimRequest,
} from './http';
import { IdGenerator } from './ids';
import { NextOutcome } from './outcomes';
import { registerPageRoutes } from './page-routes';
import { CheckoutSuccess } from './payments';
import { RefundMode } from './refunds';
import { InjectionKind } from './settlements';
import { SavedStore, StateFile } from './store';
import { DeliveryLogEntry, EventRecord, WebhookMode } from './webhooks';

export interface GatewaySimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  keyId: string;
  keySecret: string;
  webhookSecret: string;
  /** Where webhooks go; null or absent: events wait until setWebhookUrl(). */
  webhookUrl?: string | null;
  /** First retry delay; the n-th retry waits webhookRetryMs · 2^(n−1). Default 1000. */
  webhookRetryMs?: number;
  /** Tries per event including the first. Default 6. */
  webhookMaxAttempts?: number;
  /** A delivery not answered within this is a failure (and retried). Default 5000. */
  webhookTimeoutMs?: number;
  /** Where "now" comes from (ms); `/__sim/clock` moves it further. Default Date.now. */
  clock?: () => number;
  /** `account_id` in webhook bodies. */
  accountId?: string;
  /** Reproducible ids (see ids.ts); random when absent. */
  idSeed?: string;
  /** Called with errors the simulator did not expect (they answer 500). Default: ignored. */
  onError?: (err: unknown) => void;
  /**
   * Keep the whole state in this JSON file (store.ts StateFile): loaded at start, rewritten
   * after every answered request and every half second. Absent (the default): memory only.
   */
  stateFile?: string;
}

/** The control API as methods, for tests that run the simulator in-process. */
export interface GatewaySimulatorControl {
  reset(): void;
  next(outcome: NextOutcome, respondDelayMs?: number): void;
  release(outcome?: 'succeed' | 'fail'): number;
  hanging(): number;
  /**
   * Pays an order as the widget's Pay (or Fail) button would; resolves with the three signed
   * fields (after any respond_delay_ms), rejects with the SimError the API would answer.
   */
  pay(
    orderId: string,
    opts?: { outcome?: 'succeed' | 'fail'; vpa?: string },
  ): Promise<CheckoutSuccess>;
  payLink(
    linkId: string,
    opts?: { outcome?: 'succeed' | 'fail'; vpa?: string },
  ): Promise<{ redirect: string | null }>;
  refundMode(mode: RefundMode): void;
  processRefunds(opts?: { refundId?: string; status?: 'processed' | 'failed' }): void;
  webhooks(mode: Partial<WebhookMode> & { flush?: boolean }): WebhookMode;
  webhookLog(): DeliveryLogEntry[];
  webhookEvents(): ReturnType<GatewayEngine['core']['webhooks']['eventList']>;
  /** Resolves when no webhook delivery is queued, in flight or scheduled for retry. */
  webhooksIdle(): Promise<void>;
  redeliver(eventId: string): boolean;
  clock: { nowMs(): number; advance(ms: number): void; set(nowMs: number): void };
  authorizeToken(
    orderOrTokenId: string,
    opts?: { approve?: boolean; vpa?: string },
  ): Promise<GatewayToken>;
  /** The payer revokes the mandate in their UPI app. */
  revokeToken(tokenId: string): GatewayToken;
  authorizeBlock(blockId: string, opts?: { approve?: boolean; vpa?: string }): GatewayReserveBlock;
  settle(): ReturnType<GatewayEngine['settlements']['settle']>;
  injectSettlement(input: {
    kind: InjectionKind;
    paymentId?: string;
    delta?: number;
    amount?: number;
  }): void;
  state(): ReturnType<GatewayEngine['snapshot']>;
}

export interface GatewaySimulator {
  /** e.g. http://127.0.0.1:40123 — the API base (without /v1) and the widget's origin. */
  url: string;
  port: number;
  setWebhookUrl(url: string | null): void;
  control: GatewaySimulatorControl;
  /** The simulated gateway itself, for assertions on its state. */
  engine: GatewayEngine;
  close(): Promise<void>;
}

const MAX_IDEMPOTENCY_KEY = 255;

export async function startGatewaySimulator(
  options: GatewaySimulatorOptions,
): Promise<GatewaySimulator> {
  const config = {
    keyId: options.keyId,
    keySecret: options.keySecret,
    webhookSecret: options.webhookSecret,
    accountId: options.accountId ?? 'acc_SimAccount0001',
  };
  const clock = new SimClock(options.clock);
  const engine = new GatewayEngine(
    config,
    {
      url: options.webhookUrl ?? null,
      retryMs: options.webhookRetryMs ?? 1000,
      maxAttempts: options.webhookMaxAttempts ?? 6,
      timeoutMs: options.webhookTimeoutMs ?? 5000,
    },
    clock,
    new IdGenerator(options.idSeed),
  );
  const router = new Router();
  registerApiRoutes(router, engine);
  registerPageRoutes(router, engine, config);
  registerControlRoutes(router, engine);
  const idempotency = new IdempotencyStore();
  const onError = options.onError ?? (() => undefined);
  const stateFile = options.stateFile ? new StateFile(options.stateFile) : null;
  interface SavedState {
    store: SavedStore;
    idempotency: SavedIdempotency[];
    events: EventRecord[];
  }
  const saved = stateFile?.load<SavedState>();
  if (saved) {
    engine.core.store.restore(saved.store);
    idempotency.restore(saved.idempotency);
    engine.core.webhooks.restore(saved.events);
  }
  const persist = (): void => {
    try {
      stateFile?.save({
        store: engine.core.store.saved(),
        idempotency: idempotency.saved(),
        events: engine.core.webhooks.saved(),
      } satisfies SavedState);
    } catch (err) {
      onError(err);
    }
  };
  const persistTimer = stateFile ? setInterval(persist, 500) : null;
  persistTimer?.unref();

  const toReply = (err: unknown): SimReply => {
    if (err instanceof SimError) {
      return { status: err.status, json: err.body() };
    }
    onError(err);
    return new SimError(500, 'SERVER_ERROR', 'The gateway simulator failed unexpectedly').toReply();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const url = new URL(req.url ?? '/', 'http://simulator');
      const method = req.method ?? 'GET';
      const raw = await readBody(req);
      const matched = router.match(method, url.pathname);
      if (matched === null) {
        throw new SimError(
          404,
          'BAD_REQUEST_ERROR',
          'The requested URL was not found on the server',
        );
      }
      if (matched === 'method') {
        throw new SimError(405, 'BAD_REQUEST_ERROR', `${method} is not allowed on ${url.pathname}`);
      }
      const { route, params } = matched;
      if (route.api && !basicAuthOk(req.headers.authorization, config.keyId, config.keySecret)) {
        throw new SimError(401, 'BAD_REQUEST_ERROR', 'Authentication failed');
      }
      const simReq: SimRequest = {
        method,
        path: url.pathname,
        query: url.searchParams,
        params,
        body: parseJsonBody(raw),
        headers: req.headers,
      };
      const run = async (): Promise<SimReply> => {
        try {
          return await route.handler(simReq);
        } catch (err) {
          return toReply(err);
        }
      };
      const key = req.headers['idempotency-key'];
      let reply: SimReply;
      if (route.api && method === 'POST' && typeof key === 'string' && key !== '') {
        if (key.length > MAX_IDEMPOTENCY_KEY) {
          throw new SimError(400, 'BAD_REQUEST_ERROR', 'The Idempotency-Key is too long', {
            field: 'idempotency_key',
          });
        }
        reply = await idempotency.run(key, `${method} ${url.pathname} ${raw}`, run);
      } else {
        reply = await run();
      }
      persist();
      await send(res, reply);
    } catch (err) {
      await send(res, toReply(err)).catch(() => undefined);
    }
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  engine.core.origin = url;

  const reset = (): void => {
    engine.reset();
    idempotency.clear();
  };

  const control: GatewaySimulatorControl = {
    reset,
    next: (outcome, respondDelayMs = 0) =>
      void engine.core.outcomes.pushNext(outcome, respondDelayMs),
    release: (outcome) => engine.core.outcomes.release(outcome),
    hanging: () => engine.core.outcomes.hangingCount(),
    pay: async (orderId, opts = {}) => {
      const r = await engine.checkoutPay(orderId, opts);
      await sleep(r.delayMs);
      return r.body;
    },
    payLink: async (linkId, opts = {}) => {
      const r = await engine.links.pay(linkId, {
        fail: opts.outcome === 'fail',
        vpa: opts.vpa ?? null,
      });
      return { redirect: r.redirect };
    },
    refundMode: (mode) => engine.refunds.setMode(mode),
    processRefunds: (opts = {}) =>
      void engine.refunds.processPending(opts.refundId ?? null, opts.status ?? 'processed'),
    webhooks: (mode) => engine.core.webhooks.setMode(mode),
    webhookLog: () => engine.core.webhooks.deliveryLog(),
    webhookEvents: () => engine.core.webhooks.eventList(),
    webhooksIdle: () => engine.core.webhooks.idle(),
    redeliver: (eventId) => engine.core.webhooks.redeliver(eventId),
    clock: {
      nowMs: () => clock.nowMs(),
      advance: (ms) => clock.advance(ms),
      set: (ms) => clock.set(ms),
    },
    authorizeToken: async (id, opts = {}) =>
      (await engine.tokens.authorize(id, { approve: opts.approve !== false, vpa: opts.vpa })).token,
    revokeToken: (tokenId) => engine.tokens.cancel(null, tokenId),
    authorizeBlock: (blockId, opts = {}) =>
      engine.reserve.authorize(blockId, { approve: opts.approve !== false, vpa: opts.vpa }),
    settle: () => engine.settlements.settle(),
    injectSettlement: (input) => void engine.settlements.inject(input),
    state: () => engine.snapshot(),
  };

  return {
    url,
    port,
    engine,
    control,
    setWebhookUrl: (webhookUrl) => engine.core.webhooks.setUrl(webhookUrl),
    close: async () => {
      if (persistTimer) {
        clearInterval(persistTimer);
      }
      persist();
      engine.core.generation += 1;
      engine.core.outcomes.release('fail');
      engine.core.webhooks.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
