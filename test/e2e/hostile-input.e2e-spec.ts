import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

import fc from 'fast-check';

import { AccountsService } from '../../src/accounts/accounts.service';
import {
  MAX_PRICED_TOTAL_PAISE,
  MAX_REQUESTED_QUANTITY,
} from '../../src/checkout/checkout-pricing';
import { MAX_BODY_DEPTH, PROTOTYPE_KEYS } from '../../src/common/http/hostile-input';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * No input may produce a 5xx; refused input changes nothing (docs/security.md "Input limits").
 *
 * Part 1 is a property test over every public route of the OpenAPI document (plus the /app forms and
 * /mcp): hostile bodies, path ids, query strings and headers, sent with valid credentials. Part 2
 * has one example per hostile class, each failing without the edge check (hostile-input.ts) or the
 * DTO / pricing fixes.
 */

type Credential = 'apiKey' | 'agentCredential' | 'merchantProtocolKey' | 'buyerProtocolKey' | null;

interface Route {
  method: string;
  /** OpenAPI template, e.g. /acp/checkout_sessions/{checkout_session_id} */
  path: string;
  security: Credential;
  hasBody: boolean;
  queryNames: string[];
}

interface Sent {
  status: number;
  body: unknown;
}

/** Tables a request writes synchronously; background jobs (outbox, webhooks, rails, chains) are left out. */
const MAIN_TABLES = [
  'agents',
  'api_keys',
  'approvals',
  'audit_events',
  'checkout_sessions',
  'delegated_tokens',
  'forex_documents',
  'forex_files',
  'forex_quotes',
  'idempotency_records',
  'mandates',
  'mcp_refund_requests',
  'offers',
  'payment_intents',
  'person_sessions',
  'persons',
  'protocol_keys',
  'quotes',
  'refunds',
  'seller_listings',
  'webhook_endpoints',
  'workspaces',
];

const HOLE = '\u0001hole\u0001';
const KEY_HOLE = '\u0001key\u0001';

/** Percent-encodes the UTF-8 bytes of s (a lone surrogate becomes U+FFFD, as any client would send). */
function encodeSegment(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map((b) =>
      (b >= 0x30 && b <= 0x39) ||
      (b >= 0x41 && b <= 0x5a) ||
      (b >= 0x61 && b <= 0x7a) ||
      b === 0x2d ||
      b === 0x5f
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Every container of a JSON value, in document order. */
function containers(v: unknown, out: unknown[] = []): unknown[] {
  if (v !== null && typeof v === 'object') {
    out.push(v);
    for (const c of Array.isArray(v) ? v : Object.values(v)) {
      containers(c, out);
    }
  }
  return out;
}

/**
 * Plants a raw JSON fragment (which may be invalid as a JS value: 1e999, 5,000 levels of nesting)
 * into a valid base body: replacing a value or an element, or under a new key.
 */
function plant(
  base: unknown,
  where: number,
  mode: 'replace' | 'add',
  fragment: string,
  key?: string,
): string {
  const clone = JSON.parse(JSON.stringify(base)) as unknown;
  const all = containers(clone);
  const target = all[where % all.length] as Record<string, unknown> | unknown[];
  if (Array.isArray(target)) {
    if (mode === 'replace' && target.length > 0) {
      target[where % target.length] = HOLE;
    } else {
      target.push(HOLE);
    }
  } else {
    const keys = Object.keys(target);
    if (mode === 'replace' && keys.length > 0 && key === undefined) {
      target[keys[where % keys.length]] = HOLE;
    } else {
      target[KEY_HOLE] = HOLE;
    }
  }
  return JSON.stringify(clone)
    .replace(JSON.stringify(KEY_HOLE), JSON.stringify(key ?? 'extra_field'))
    .replace(JSON.stringify(HOLE), fragment);
}

const LONE = ['\ud800', '\udbff', '\udc00', '\udfff'];
const PROTO_NAMES = [...PROTOTYPE_KEYS];
const anyUtf16 = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  maxLength: 20,
});

/** A raw JSON fragment; `edge` when the edge check must refuse it wherever it is planted. */
interface Fragment {
  text: string;
  edge: boolean;
}
const edge = (text: string): Fragment => ({ text, edge: true });
const other = (text: string): Fragment => ({ text, edge: false });

/** Raw JSON fragments: each is hostile in some way (or merely wrong for the field). */
const hostileFragment: fc.Arbitrary<Fragment> = fc.oneof(
  fc
    // One level past the limit at least: MAX_BODY_DEPTH nested containers are still allowed.
    .tuple(fc.integer({ min: MAX_BODY_DEPTH + 1, max: 6000 }), fc.boolean())
    .map(([n, arr]) =>
      edge(arr ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '0' + '}'.repeat(n)),
    ),
  fc
    .constantFrom(
      '1e999',
      '-1e999',
      '1E400',
      '9'.repeat(400),
      `-${'9'.repeat(400)}`,
      '9007199254740992',
      '9007199254740993',
      '-9007199254740993',
      '1e20',
      '18446744073709551616',
      '1.7976931348623157e308',
    )
    .map(edge),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }))
    .map(([a, b]) => edge(JSON.stringify(`${a}\u0000${b}`))),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom(...LONE), fc.string({ maxLength: 10 }))
    .map(([a, s, b]) => edge(JSON.stringify(a + s + b))),
  fc.constantFrom(...PROTO_NAMES).map((k) => edge(`{${JSON.stringify(k)}:1}`)),
  anyUtf16.map((s) => other(JSON.stringify(s))),
  fc.jsonValue({ maxDepth: 4 }).map((v) => other(JSON.stringify(v))),
  fc
    .constantFrom(
      'null',
      'true',
      'false',
      '[]',
      '{}',
      '""',
      '0',
      '-1',
      '1.5',
      '-0',
      '[[]]',
      '[null]',
      '[[{}]]',
    )
    .map(other),
  fc.integer({ min: 257, max: 120_000 }).map((n) => other(JSON.stringify('x'.repeat(n)))),
);

const hostileKey: fc.Arbitrary<Fragment> = fc.oneof(
  fc.constantFrom(...PROTO_NAMES).map(edge),
  fc.string({ maxLength: 8 }).map((s) => edge(`${s}\u0000`)),
  fc.constantFrom(...LONE).map((s) => edge(`k${s}`)),
  anyUtf16.map(other),
);

/** Path ids; `edge` ones decode to a NUL or are not UTF-8 at all. */
const hostileId: fc.Arbitrary<Fragment> = fc.oneof(
  fc
    .constantFrom('%00', 'cs_%00', 'a%00b', '%ED%A0%80', '%ED%B0%80', '%C0%80', '%FF', '%E2%82')
    .map(edge),
  fc
    .constantFrom('..', '%2e%2e', '%25', 'null', '-1', '0', 'x'.repeat(3000), '%27%3B--')
    .map(other),
  anyUtf16.map((s) => other(encodeSegment(s))),
  fc.string({ maxLength: 12 }).map((s) => edge(`${encodeSegment(s)}%00`)),
);

const hostileQuery: fc.Arbitrary<{ edge: boolean; build: (names: string[]) => string }> = fc
  .tuple(
    fc.nat(),
    fc.oneof(
      fc.constantFrom(
        '1e999',
        '9'.repeat(400),
        '-1',
        'abc',
        '%00',
        '%ED%A0%80',
        'x'.repeat(500),
        '1.5',
        '',
      ),
      anyUtf16.map(encodeSegment),
    ),
    fc.option(fc.constantFrom(...PROTO_NAMES), { nil: undefined }),
  )
  .map(([i, value, proto]) => ({
    edge: proto !== undefined || value === '%00',
    build: (names: string[]) => {
      const name = proto ?? (names.length > 0 ? names[i % names.length] : 'x');
      return `?${encodeURIComponent(name)}=${value}`;
    },
  }));

/** Header values a client can send (ByteString without NUL, CR or LF); NUL is tested over a raw socket. */
const latin1 = fc.string({
  unit: fc
    .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }))
    .map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 300,
});

describe('Hostile input', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let lister: { id: string; credential: string };
  /** Target of the fuzzed /v1/pay/agents/{id}/… routes (a rotated credential must not lock the lister out). */
  let victimId: string;
  let sessionId: string;
  let routes: Route[];

  const OFFERS = [
    { sku: 'tea', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
    { sku: 'gold', name: 'Gold bar', unit_paise: 1_000_000_000_000, category: 'luxury.gold' },
  ];

  /** A valid body per route, so that planted fragments get past the outer validation. */
  const baseBodies = (): Record<string, unknown> => ({
    'POST /acp/checkout_sessions': {
      line_items: [{ id: 'tea', quantity: 1 }],
      currency: 'inr',
      capabilities: {},
      buyer: { email: 'a@example.test', first_name: 'A' },
      metadata: { k: 'v' },
    },
    'POST /acp/checkout_sessions/{checkout_session_id}': {
      line_items: [{ id: 'tea', quantity: 2 }],
      buyer: { email: 'b@example.test' },
    },
    'POST /acp/checkout_sessions/{checkout_session_id}/cancel': {
      intent_trace: { reason_code: 'other', metadata: { a: 1 } },
    },
    'PUT /v1/pay/agents/{agent_id}/listing': { listed: true, offers: [OFFERS[0]] },
    'POST /v1/pay/agents': { name: 'Fuzz agent', role: 'buyer' },
    'POST /v1/api-keys': { name: 'fuzz' },
    'POST /v1/webhooks/endpoints': {
      url: 'https://example.test/hook',
      events: ['payment_intent.succeeded'],
    },
    'POST /v1/pay/quotes': { items: [{ name: 'Tea', unit_paise: 100, quantity: 1 }] },
    'POST /v1/pay/sellers/{agent_id}/quotes': { sku: 'tea' },
    'POST /v1/pay/mandates': { max_amount_paise: 1000 },
    'POST /v1/pay/protocol-keys': { role: 'buyer' },
  });

  function credentialFor(c: Credential, pick: number): string | undefined {
    switch (c) {
      case 'apiKey':
        return ws.apiKey;
      case 'agentCredential':
        return [lister.credential, ws.buyer.credential, ws.seller.credential][pick % 3];
      case 'merchantProtocolKey':
        return ws.merchantKey;
      case 'buyerProtocolKey':
        return ws.buyerKey;
      case null:
        return undefined;
    }
  }

  /** A real id for a path parameter, so that hostile bodies reach handlers. */
  function validId(path: string, param: string): string {
    if (param === 'checkout_session_id') {
      return sessionId;
    }
    if (param === 'agent_id') {
      return path.endsWith('/listing') ? lister.id : ws.seller.id;
    }
    if (path.startsWith('/v1/pay/agents/')) {
      return victimId;
    }
    return `id_${randomUUID()}`;
  }

  function fillPath(path: string, id: string | null): string {
    return path.replace(/\{([^}]+)\}/g, (_m, name: string) => id ?? validId(path, name));
  }

  async function counts(): Promise<Record<string, number>> {
    const sql = `SELECT ${MAIN_TABLES.map((n) => `(SELECT count(*) FROM ${n})::int AS ${n}`).join(', ')}`;
    const [row] = await t.db.query<Record<string, number>[]>(sql);
    return row;
  }

  async function send(
    method: string,
    path: string,
    opts: {
      credential?: string;
      body?: string;
      contentType?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Sent> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.credential) {
      headers.Authorization = `Bearer ${opts.credential}`;
    }
    if (path.startsWith('/acp')) {
      headers['API-Version'] ??= '2026-04-17';
      if (method === 'POST') {
        headers['Idempotency-Key'] ??= randomUUID();
      }
    }
    if (opts.body !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
    }
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers,
      body: opts.body,
      redirect: 'manual',
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // HTML pages of /app
    }
    return { status: res.status, body };
  }

  const failures: string[] = [];

  /**
   * Routes that read their body as bytes until a MAC over them verifies (http-pipeline.ts
   * RAW_JSON_ROUTES): the gateway's webhook refuses a hostile body by its signature (401; 404 with
   * no gateway configured, as here), and a signed one is stored `unprocessable`
   * (gateway-webhook-edge.e2e-spec.ts). Still checked here: never a 5xx, nothing written.
   */
  const macFirst = (route: { method: string; path: string }) =>
    route.method === 'POST' && route.path === '/v1/webhooks/gateway';

  /**
   * Sends one case and records what is wrong: any 5xx; for input the edge must refuse (`edge`),
   * anything but 400/413/415 or any row written; for other 4xx answers, rows written anywhere but
   * idempotency_records (a business 4xx such as 404 or invalid_state is stored against its
   * Idempotency-Key by design, docs/security.md "Idempotency").
   */
  async function check(label: string, go: () => Promise<Sent>, edgeInput = false): Promise<Sent> {
    const before = await counts();
    const res = await go();
    if (res.status >= 500) {
      failures.push(`${label} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      return res;
    }
    if (edgeInput && ![400, 413, 415].includes(res.status)) {
      failures.push(`${label} → ${res.status}, expected a refusal`);
    }
    if (res.status >= 400) {
      const after = await counts();
      const changed = MAIN_TABLES.filter((n) => after[n] !== before[n]).filter(
        (n) => edgeInput || n !== 'idempotency_records',
      );
      if (changed.length > 0) {
        failures.push(`${label} → ${res.status} but wrote rows in ${changed.join(', ')}`);
      }
    }
    return res;
  }

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    const agent = await t
      .get(AccountsService)
      .createAgent(
        ws.workspaceId,
        { name: 'Fuzz lister', role: 'seller' },
        { type: 'person', id: ws.personId },
      );
    lister = { id: agent.id, credential: agent.credential! };
    victimId = (
      await t
        .get(AccountsService)
        .createAgent(
          ws.workspaceId,
          { name: 'Fuzz victim', role: 'both' },
          { type: 'person', id: ws.personId },
        )
    ).id;
    const listed = await send('PUT', `/v1/pay/agents/${ws.seller.id}/listing`, {
      credential: ws.seller.credential,
      body: JSON.stringify({ listed: true, offers: OFFERS }),
    });
    expect(listed.status).toBe(200);
    const created = await send('POST', '/acp/checkout_sessions', {
      credential: ws.merchantKey,
      body: JSON.stringify({ line_items: [{ id: 'tea' }], currency: 'inr', capabilities: {} }),
    });
    expect(created.status).toBe(201);
    sessionId = (created.body as { id: string }).id;

    const doc = JSON.parse(readFileSync(join(__dirname, '../../openapi/openapi.json'), 'utf8')) as {
      paths: Record<
        string,
        Record<
          string,
          {
            security?: Record<string, unknown>[];
            requestBody?: unknown;
            parameters?: { in: string; name: string }[];
          }
        >
      >;
    };
    routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        security: (Object.keys(op.security?.[0] ?? {})[0] ?? null) as Credential,
        // Every mutating route gets a body: one it does not expect is hostile too.
        hasBody: method !== 'get',
        queryNames: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      })),
    );
    routes.push(
      { method: 'POST', path: '/mcp', security: 'agentCredential', hasBody: true, queryNames: [] },
      { method: 'GET', path: '/app/login', security: null, hasBody: false, queryNames: ['next'] },
    );
  }, 30_000);
  afterAll(() => t?.close());

  afterEach(() => {
    const found = failures.splice(0);
    expect(found).toEqual([]);
  });

  describe('property: no 5xx, refusals write nothing', () => {
    it('hostile fragments planted in valid bodies of every mutating route', async () => {
      const bodies = baseBodies();
      const mutating = routes.filter((r) => r.hasBody);
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          fc.nat(),
          fc.constantFrom<'replace' | 'add'>('replace', 'add'),
          hostileFragment,
          fc.option(hostileKey, { nil: undefined, freq: 3 }),
          async (r, where, mode, fragment, key) => {
            const route = mutating[r % mutating.length];
            const base = bodies[`${route.method} ${route.path}`] ?? {};
            const text = plant(base, where, mode, fragment.text, key?.text);
            await check(
              `${route.method} ${route.path} ${text.slice(0, 200)}`,
              () =>
                send(route.method, fillPath(route.path, null), {
                  credential: credentialFor(route.security, r),
                  body: text,
                }),
              (fragment.edge || key?.edge === true) && !macFirst(route),
            );
          },
        ),
        { numRuns: 1800 },
      );
    }, 120_000);

    it('hostile path ids, query strings, Idempotency-Key and API-Version on every route', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          fc.option(hostileId, { nil: null }),
          fc.option(hostileQuery, { nil: undefined }),
          fc.option(latin1, { nil: undefined }),
          fc.option(fc.oneof(latin1, fc.constantFrom('2026-04-17', '2025-01-01', '')), {
            nil: undefined,
          }),
          async (r, id, query, idemKey, apiVersion) => {
            const route = routes[r % routes.length];
            const withId = route.path.includes('{') ? id : null;
            const path =
              fillPath(route.path, withId?.text ?? null) +
              (query ? query.build(route.queryNames) : '');
            const headers: Record<string, string> = {};
            if (idemKey !== undefined) {
              headers['Idempotency-Key'] = idemKey;
            }
            if (apiVersion !== undefined) {
              headers['API-Version'] = apiVersion;
            }
            await check(
              `${route.method} ${path.slice(0, 200)} ${JSON.stringify(headers).slice(0, 100)}`,
              () =>
                send(route.method, path, {
                  credential: credentialFor(route.security, r),
                  headers,
                  body: route.hasBody ? '{}' : undefined,
                }),
              withId?.edge === true || query?.edge === true,
            );
          },
        ),
        { numRuns: 900 },
      );
    }, 120_000);

    it('hostile whole bodies (deep at the root, scalars, arrays, wrong media) on every mutating route', async () => {
      const mutating = routes.filter((r) => r.hasBody);
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          hostileFragment,
          fc.constantFrom(
            'application/json',
            'application/merge-patch+json',
            'application/json; charset=utf-16',
          ),
          async (r, fragment, type) => {
            const route = mutating[r % mutating.length];
            await check(
              `${route.method} ${route.path} ${type} ${fragment.text.slice(0, 200)}`,
              () =>
                send(route.method, fillPath(route.path, null), {
                  credential: credentialFor(route.security, r),
                  body: fragment.text,
                  contentType: type,
                }),
              fragment.edge && !type.includes('utf-16') && !macFirst(route),
            );
          },
        ),
        { numRuns: 300 },
      );
    }, 60_000);

    it('hostile form posts to /app', async () => {
      const field = fc.oneof(
        fc.constantFrom('%00', 'a%00').map(edge),
        fc.constantFrom('%ED%A0%80', '%C0%80', '%FF', 'x'.repeat(5000)).map(other),
        anyUtf16.map((s) => other(encodeSegment(s))),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('/app/login', '/app/signup', '/app/logout', '/app/api-keys'),
          fc.option(fc.constantFrom(...PROTO_NAMES), { nil: undefined }),
          field,
          async (path, proto, value) => {
            const form = `email=${value.text}&password=${value.text}&workspace_name=w&name=${value.text}${proto ? `&${proto}=1` : ''}`;
            await check(
              `POST ${path} ${form.slice(0, 200)}`,
              () =>
                send('POST', path, {
                  body: form,
                  contentType: 'application/x-www-form-urlencoded',
                }),
              value.edge || proto !== undefined,
            );
          },
        ),
        { numRuns: 200 },
      );
    }, 60_000);
  });

  describe('examples (each failed before the edge check or the DTO fixes)', () => {
    const createBody = (extra: Record<string, unknown> = {}) => ({
      line_items: [{ id: 'tea', quantity: 1 }],
      currency: 'inr',
      capabilities: {},
      ...extra,
    });
    const acpCreate = (text: string) =>
      send('POST', '/acp/checkout_sessions', { credential: ws.merchantKey, body: text });
    const acpError = (res: Sent, param: string | undefined, code = 'invalid') => {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'invalid_request', code });
      expect((res.body as { param?: string }).param).toBe(param);
    };

    it('5,000 levels of nesting: 400 naming where the limit was crossed, at the root and inside an open object', async () => {
      const n = 5000;
      const deep = '{"a":'.repeat(n) + '1' + '}'.repeat(n);
      const res = await check('deep metadata', () =>
        acpCreate(
          JSON.stringify(createBody({ metadata: HOLE })).replace(JSON.stringify(HOLE), deep),
        ),
      );
      acpError(res, `$.metadata${'.a'.repeat(MAX_BODY_DEPTH - 1)}`);
      expect((res.body as { message: string }).message).toContain(
        `deeper than ${MAX_BODY_DEPTH} levels`,
      );

      const root = await check('deep root', () =>
        send('POST', '/v1/pay/agents', {
          credential: ws.apiKey,
          body: '['.repeat(100_000) + ']'.repeat(100_000),
        }),
      );
      expect(root.status).toBe(400);
      expect(root.body).toMatchObject({
        error: { code: 'invalid', param: `$${'[0]'.repeat(MAX_BODY_DEPTH)}` },
      });

      // Exactly at the limit is fine (the body itself is level 1).
      const atLimit = '{"a":'.repeat(MAX_BODY_DEPTH - 1) + '1' + '}'.repeat(MAX_BODY_DEPTH - 1);
      const ok = await acpCreate(
        JSON.stringify(createBody({ metadata: HOLE })).replace(JSON.stringify(HOLE), atLimit),
      );
      expect(ok.status).toBe(201);
    });

    it.each([
      ['1e999', '$.line_items[0].quantity'],
      ['-1e999', '$.line_items[0].quantity'],
      ['9'.repeat(400), '$.line_items[0].quantity'],
      ['9007199254740993', '$.line_items[0].quantity'],
    ])('number %s: 400 naming the field', async (literal, param) => {
      const text = `{"line_items":[{"id":"tea","quantity":${literal}}],"currency":"inr","capabilities":{}}`;
      const res = await check(`number ${literal}`, () => acpCreate(text));
      acpError(res, param);
    });

    it('a non-finite number in an open object (hashed for Idempotency-Key) is a 400, not a 500', async () => {
      const text = `{"line_items":[{"id":"tea"}],"currency":"inr","capabilities":{},"metadata":{"n":1e999}}`;
      acpError(await check('metadata 1e999', () => acpCreate(text)), '$.metadata.n');
      const v1 = await check('listing 400 digits', () =>
        send('PUT', `/v1/pay/agents/${lister.id}/listing`, {
          credential: lister.credential,
          body: `{"listed":true,"offers":[{"sku":"a","name":"A","category":"food","unit_paise":${'1'.repeat(400)}}]}`,
          headers: { 'Idempotency-Key': randomUUID() },
        }),
      );
      expect(v1.status).toBe(400);
      expect(v1.body).toMatchObject({
        error: { code: 'invalid', param: '$.offers[0].unit_paise' },
      });
    });

    it('NUL in a string, a key, a path id and a query string: 400, nothing stored', async () => {
      acpError(
        await check('NUL buyer', () =>
          acpCreate(
            JSON.stringify(
              createBody({ buyer: { email: 'a@example.test', first_name: 'A\u0000B' } }),
            ),
          ),
        ),
        '$.buyer.first_name',
      );
      acpError(
        await check('NUL key', () =>
          acpCreate(JSON.stringify(createBody({ metadata: { 'a\u0000': 1 } }))),
        ),
        "$.metadata['a\\u0000']",
      );
      const listing = await check('NUL offer name', () =>
        send('PUT', `/v1/pay/agents/${lister.id}/listing`, {
          credential: lister.credential,
          body: JSON.stringify({ listed: true, offers: [{ ...OFFERS[0], name: 'Tea\u0000' }] }),
        }),
      );
      expect(listing.body).toMatchObject({ error: { code: 'invalid', param: '$.offers[0].name' } });
      for (const path of [`/acp/checkout_sessions/cs_%00`, `/acp/checkout_sessions/%ED%A0%80`]) {
        const res = await check(`GET ${path}`, () =>
          send('GET', path, { credential: ws.merchantKey }),
        );
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ type: 'invalid_request', code: 'invalid' });
      }
      const q = await check('NUL query', () =>
        send('GET', '/v1/pay/sellers?q=tea%00', { credential: ws.buyer.credential }),
      );
      expect(q.status).toBe(400);
      expect(q.body).toMatchObject({ error: { code: 'invalid', param: '$.query.q' } });
      const post = await check('NUL path POST', () =>
        send('POST', '/acp/checkout_sessions/cs_%00', {
          credential: ws.merchantKey,
          body: '{"buyer":{"email":"a@example.test"}}',
        }),
      );
      expect(post.status).toBe(400);
    });

    it('a NUL in a header is refused by the HTTP parser with 400, never a 500', async () => {
      const raw = await new Promise<string>((resolve, reject) => {
        const { port } = new URL(t.url);
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `GET /acp/checkout_sessions/${sessionId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ws.merchantKey}\r\nAPI-Version: 2026-04-17\r\nIdempotency-Key: a\u0000b\r\nConnection: close\r\n\r\n`,
          );
        });
        let data = '';
        socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    });

    it('a lone surrogate in a string stored as jsonb (buyer): 400, no session', async () => {
      for (const s of LONE) {
        acpError(
          await check(`lone ${s.charCodeAt(0).toString(16)}`, () =>
            acpCreate(
              JSON.stringify(
                createBody({ buyer: { email: 'a@example.test', first_name: `x${s}` } }),
              ),
            ),
          ),
          '$.buyer.first_name',
        );
      }
      const update = await check('lone update', () =>
        send('POST', `/acp/checkout_sessions/${sessionId}`, {
          credential: ws.merchantKey,
          body: JSON.stringify({ buyer: { email: 'a@example.test', last_name: '\udc00' } }),
        }),
      );
      acpError(update, '$.buyer.last_name');
    });

    it.each([
      ['[[]]'],
      ['[[{"sku":"tea","name":"Tea","unit_paise":100,"category":"food"}]]'],
      ['[{"sku":"a","name":"A","unit_paise":1,"category":"food"},[]]'],
    ])(
      'PUT listing with offers %s (nested arrays): 400, not "bigint: undefined"',
      async (offers) => {
        const res = await check(`listing ${offers}`, () =>
          send('PUT', `/v1/pay/agents/${lister.id}/listing`, {
            credential: lister.credential,
            body: `{"listed":true,"offers":${offers}}`,
            headers: { 'Idempotency-Key': randomUUID() },
          }),
        );
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: { code: 'invalid', param: '$.offers' } });
        expect((res.body as { error: { message: string } }).error.message).toMatch(
          /must be a JSON object/,
        );
      },
    );

    it('nested arrays in line_items are a 400 too', async () => {
      acpError(
        await check('line_items [[…]]', () =>
          acpCreate('{"line_items":[[{"id":"tea"}]],"currency":"inr","capabilities":{}}'),
        ),
        '$.line_items',
      );
    });

    it.each(PROTO_NAMES.map((k) => [k]))(
      'key %s is refused like an unknown field on /acp and /v1',
      async (key) => {
        const k = JSON.stringify(key);
        const acp = await check(`proto ${key} acp`, () =>
          acpCreate(`{"line_items":[{"id":"tea"}],"currency":"inr","capabilities":{${k}:{"x":1}}}`),
        );
        const path = /^[A-Za-z_]\w*$/.test(key)
          ? `$.capabilities.${key}`
          : `$.capabilities['${key}']`;
        acpError(acp, path);
        expect((acp.body as { message: string }).message).toBe(`Unknown field ${path}`);
        const top = await check(`proto ${key} acp top`, () =>
          acpCreate(`{${k}:{},"line_items":[{"id":"tea"}],"currency":"inr","capabilities":{}}`),
        );
        acpError(top, `$.${key}`);
        const v1 = await check(`proto ${key} v1`, () =>
          send('PUT', `/v1/pay/agents/${lister.id}/listing`, {
            credential: lister.credential,
            body: `{"listed":true,"offers":[{"sku":"a","name":"A","unit_paise":1,"category":"food",${k}:1}]}`,
          }),
        );
        expect(v1.status).toBe(400);
        expect(v1.body).toMatchObject({
          error: {
            code: 'invalid',
            param: `$.offers[0].${key}`,
            message: `Unknown field $.offers[0].${key}`,
          },
        });
      },
    );

    it('quantities above the documented maximum are a 400, never a stored session', async () => {
      for (const q of ['1e20', '9007199254740992', String(MAX_REQUESTED_QUANTITY + 1)]) {
        acpError(
          await check(`quantity ${q}`, () =>
            acpCreate(
              `{"line_items":[{"id":"tea","quantity":${q}}],"currency":"inr","capabilities":{}}`,
            ),
          ),
          '$.line_items[0].quantity',
        );
      }
      // At the maximum quantity the session is stored, not ready (quantity_exceeded), with an exact total.
      const ok = await acpCreate(
        JSON.stringify(
          createBody({ line_items: [{ id: 'tea', quantity: MAX_REQUESTED_QUANTITY }] }),
        ),
      );
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({ status: 'not_ready_for_payment' });
      // A priced total above MAX_PRICED_TOTAL_PAISE (still far below 2^53) is refused.
      expect(OFFERS[1].unit_paise * 1001).toBeGreaterThan(MAX_PRICED_TOTAL_PAISE);
      const before = await counts();
      const res = await acpCreate(
        JSON.stringify(createBody({ line_items: [{ id: 'tea' }, { id: 'gold', quantity: 1001 }] })),
      );
      acpError(res, '$.line_items[1].quantity');
      expect(await counts()).toEqual(before);
      const own = (ok.body as { id: string }).id;
      const update = await send('POST', `/acp/checkout_sessions/${own}`, {
        credential: ws.merchantKey,
        body: JSON.stringify({ line_items: [{ id: 'gold', quantity: MAX_REQUESTED_QUANTITY }] }),
      });
      acpError(update, '$.line_items[0].quantity');
    });

    it('a form post to /app with a NUL or a proto key is a 400, not a 500', async () => {
      for (const form of [
        'email=a%00%40example.test&password=x',
        'email=a%40example.test&password=x&__proto__=1',
        'email=a%40example.test&password=x&constructor=1',
      ]) {
        const res = await check(`form ${form}`, () =>
          send('POST', '/app/login', {
            body: form,
            contentType: 'application/x-www-form-urlencoded',
          }),
        );
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: { type: 'invalid_request', code: 'invalid' } });
      }
    });
  });
});
