import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { inspect } from 'node:util';

import { GatewayClient, GatewayError } from '../../../src/rails/gateway/gateway-client';

/**
 * The typed client's transport against a scripted local HTTP server (the happy paths run against
 * the simulator in test/e2e/gateway-sim.e2e-spec.ts): Basic auth and Idempotency-Key sent,
 * every failure mapped to GatewayError with the right `retryable`, and the key secret never in an
 * error's message, its fields, or an inspected client.
 */
const SECRET = 'very-secret-key-value';

type Script = (req: IncomingMessage, res: ServerResponse, body: string) => void;

describe('GatewayClient transport', () => {
  let server: Server;
  let url: string;
  let script: Script;
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] =
    [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        script(req, res, body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  const client = (timeoutMs = 2000) =>
    new GatewayClient({ apiUrl: `${url}/`, keyId: 'key_1', keySecret: SECRET, timeoutMs });

  const reply =
    (status: number, body: unknown, raw = false): Script =>
    (_req, res) => {
      res.writeHead(status, { 'content-type': raw ? 'text/html' : 'application/json' });
      res.end(raw ? String(body) : JSON.stringify(body));
    };

  async function failure(p: Promise<unknown>): Promise<GatewayError> {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GatewayError);
    const g = err as GatewayError;
    expect(JSON.stringify({ ...g, message: g.message, stack: g.stack })).not.toContain(SECRET);
    expect(g.message).not.toContain(Buffer.from(`key_1:${SECRET}`).toString('base64'));
    return g;
  }

  it('sends Basic auth, JSON and the Idempotency-Key; returns the parsed body', async () => {
    script = reply(200, { id: 'order_X', entity: 'order' });
    const order = await client().createOrder(
      { amount: 100, currency: 'INR', receipt: 'r' },
      'idem-1',
    );
    expect(order.id).toBe('order_X');
    const req = seen[0];
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/orders');
    expect(req.headers.authorization).toBe(
      `Basic ${Buffer.from(`key_1:${SECRET}`).toString('base64')}`,
    );
    expect(req.headers['idempotency-key']).toBe('idem-1');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ amount: 100, currency: 'INR', receipt: 'r' });
  });

  it('encodes ids and queries; a GET has no body or idempotency key', async () => {
    script = reply(200, { entity: 'collection', count: 0, items: [] });
    await client().findOrdersByReceipt('a b&c=d');
    await client().getPayment('pay_1/../x');
    expect(seen[0].url).toBe('/v1/orders?receipt=a+b%26c%3Dd');
    expect(seen[1].url).toBe('/v1/payments/pay_1%2F..%2Fx');
    expect(seen[1].body).toBe('');
    expect(seen[1].headers['idempotency-key']).toBeUndefined();
  });

  it('maps a 4xx gateway error, with field, reason and metadata, as not retryable', async () => {
    script = reply(400, {
      error: {
        code: 'BAD_REQUEST_ERROR',
        description: 'The amount must be at least 100',
        field: 'amount',
        reason: 'insufficient_funds',
        metadata: { order_id: 'order_1', payment_id: 'pay_1' },
      },
    });
    const err = await failure(client().createOrder({ amount: 1, currency: 'INR', receipt: 'r' }));
    expect(err).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST_ERROR',
      description: 'The amount must be at least 100',
      field: 'amount',
      reason: 'insufficient_funds',
      metadata: { order_id: 'order_1', payment_id: 'pay_1' },
      retryable: false,
    });
    expect(err.message).toContain('POST /v1/orders');
  });

  it('401 is not retryable', async () => {
    script = reply(401, {
      error: { code: 'BAD_REQUEST_ERROR', description: 'Authentication failed' },
    });
    expect(await failure(client().getOrder('order_1'))).toMatchObject({
      status: 401,
      retryable: false,
    });
  });

  it('5xx is retryable, with or without a JSON body', async () => {
    script = reply(500, { error: { code: 'SERVER_ERROR', description: 'oops' } });
    expect(await failure(client().getOrder('order_1'))).toMatchObject({
      status: 500,
      code: 'SERVER_ERROR',
      retryable: true,
    });
    script = reply(502, '<html>Bad gateway</html>', true);
    expect(await failure(client().getOrder('order_1'))).toMatchObject({
      status: 502,
      code: 'SERVER_ERROR',
      description: 'The gateway answered HTTP 502',
      retryable: true,
    });
  });

  it('an unknown error code in a 4xx falls back to BAD_REQUEST_ERROR', async () => {
    script = reply(422, { error: { code: 'WHATEVER', description: 'x' } });
    expect(await failure(client().getOrder('order_1'))).toMatchObject({
      code: 'BAD_REQUEST_ERROR',
      retryable: false,
    });
  });

  it('a 200 that is not JSON is a retryable SERVER_ERROR', async () => {
    script = reply(200, 'not json', true);
    expect(await failure(client().getOrder('order_1'))).toMatchObject({
      status: 200,
      code: 'SERVER_ERROR',
      retryable: true,
    });
  });

  it('a timeout is a retryable TIMEOUT with status 0', async () => {
    script = () => undefined; // never answers
    const started = Date.now();
    const err = await failure(client(150).getOrder('order_1'));
    expect(err).toMatchObject({ status: 0, code: 'TIMEOUT', retryable: true });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a refused connection is a retryable NETWORK_ERROR', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const c = new GatewayClient({
      apiUrl: `http://127.0.0.1:${port}`,
      keyId: 'key_1',
      keySecret: SECRET,
      timeoutMs: 2000,
    });
    const err = await failure(c.getOrder('order_1'));
    expect(err).toMatchObject({ status: 0, code: 'NETWORK_ERROR', retryable: true });
    expect(err.description).toContain('ECONNREFUSED');
  });

  it('keeps the key secret out of an inspected or serialised client', () => {
    const c = client();
    expect(inspect(c, { depth: 5, showHidden: true })).not.toContain(SECRET);
    expect(JSON.stringify(c)).not.toContain(SECRET);
  });
});
