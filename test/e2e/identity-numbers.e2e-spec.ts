import { execFile } from 'node:child_process';
import { createPublicKey, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

import fc from 'fast-check';
import request from 'supertest';

import { WITHHELD } from '../../src/common/http/logging';
import { identityNumberIn } from '../../src/common/identity/identity-numbers';
import { newId, randomToken } from '../../src/common/ids';
import {
  ForexClient,
  forexClient,
  PDF,
  randomPan,
  registerPartner,
  SeededPartner,
  travelFile,
} from '../factories/forex.factory';
import { startAppCapturingLogs, TestApp, testDatabaseUrl } from '../support/app';
import {
  aadhaarNumber,
  embedded,
  notAadhaarNumber,
  panToken,
  Rendered,
  rendered,
} from '../support/identity-arbitraries';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Identity numbers are refused at the edge (src/common/identity): an Aadhaar number in any
 * script, separator and grouping, and a PAN outside the forex `pan` field, sent in a JSON body
 * field, a form, a query string, a path, an MCP tool argument, a nested key or a document's file
 * name, is refused naming the field, never echoing the value, and nothing is stored: no row in
 * the tables a request writes (idempotency records included), and at the end no trace in a
 * pg_dump of the whole database or in any log line the app wrote.
 */

const RUNS = { numRuns: 100 };

/** Tables the requests below would write. */
const TABLES = [
  'agents',
  'delegated_tokens',
  'protocol_keys',
  'ucp_order_webhooks',
  'forex_files',
  'forex_quotes',
  'forex_documents',
  'idempotency_records',
  'persons',
  'workspaces',
  'checkout_sessions',
  'audit_events',
  'api_keys',
];

type Place = 'file' | 'form' | 'query' | 'path' | 'mcp' | 'key' | 'filename';
const PLACES: Place[] = ['file', 'form', 'query', 'path', 'mcp', 'key', 'filename'];
const FILE_FIELDS = ['traveller_name', 'notes', 'beneficiary_name'];
// eslint-disable-next-line no-control-regex -- the path check refuses control characters first
const CONTROL = /[\u0000-\u001f\u007f]/;

interface Answer {
  status: number;
  body: unknown;
  text: string;
}

describe('identity numbers refused at the edge', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let partner: SeededPartner;
  let fx: ForexClient;
  let draftFileId: string;
  const logs: string[] = [];
  /** Every number sent (digits and as written), looked for in the dump and logs at the end. */
  const sent: Rendered[] = [];

  beforeAll(async () => {
    t = await startAppCapturingLogs(logs, {
      RATE_LIMIT_LOGIN_PER_MIN: '10000',
      RATE_LIMIT_PUBLIC_PER_S: '10000',
    });
    ws = await seedWorkspace(t);
    partner = await registerPartner(t);
    fx = forexClient(t, ws.buyer.credential);
    const file = await fx.createFile(travelFile(t, ws, partner.partnerId));
    expect(file.status).toBe(201);
    draftFileId = file.body.id as string;
  }, 30_000);
  afterAll(() => t?.close());

  async function counts(): Promise<Record<string, number>> {
    const sql = `SELECT ${TABLES.map((n) => `(SELECT count(*) FROM ${n})::int AS ${n}`).join(', ')}`;
    const [row] = await t.db.query<Record<string, number>[]>(sql);
    return row;
  }

  function answer(res: request.Response): Answer {
    return { status: res.status, body: res.body as unknown, text: res.text };
  }

  const auth = () => ({ Authorization: `Bearer ${ws.buyer.credential}` });

  function mcpCall(args: Record<string, unknown>, tool = 'create_forex_file') {
    return request(t.url)
      .post('/mcp')
      .set(auth())
      .set('Accept', 'application/json, text/event-stream')
      .send({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: tool, arguments: args },
      });
  }

  const mcpFileArgs = (over: Record<string, unknown>) => {
    const { departure_date, return_date, pan, partner_id, person_email } = travelFile(
      t,
      ws,
      partner.partnerId,
    );
    return {
      partner_id,
      kind: 'travel',
      purpose_code: 'S0306',
      person_email,
      traveller_name: 'Asha Rao',
      destination_country: 'AE',
      departure_date,
      return_date,
      pan,
      idempotency_key: `k-${randomUUID()}`,
      ...over,
    };
  };

  /** Sends `text` in `place`; returns the answer and the param the refusal must name. */
  async function sendIn(
    place: Place,
    text: string,
    pick: number,
  ): Promise<{ res: Answer; param: string; mcp: boolean }> {
    const key = `k-${randomUUID()}`;
    switch (place) {
      case 'file': {
        const field = FILE_FIELDS[pick % FILE_FIELDS.length];
        const res = await fx.createFile(
          travelFile(t, ws, partner.partnerId, { [field]: text }),
          key,
        );
        return { res: answer(res), param: `$.${field}`, mcp: false };
      }
      case 'form': {
        const res = await request(t.url)
          .post('/app/signup')
          .type('form')
          .send({
            workspace_name: 'Rao family',
            name: text,
            email: `p-${randomToken(8).toLowerCase()}@example.test`,
            password: `pw-${randomToken(16)}`,
            _csrf: 'x',
          });
        return { res: answer(res), param: '$.name', mcp: false };
      }
      case 'query': {
        const res = await request(t.url)
          .get(`/v1/pay/forex/orders?starting_after=${encodeURIComponent(text)}`)
          .set(auth());
        return { res: answer(res), param: '$.query.starting_after', mcp: false };
      }
      case 'path': {
        if (CONTROL.test(text)) {
          return sendIn('query', text, pick);
        }
        const res = await request(t.url)
          .get(`/v1/pay/forex/orders/${encodeURIComponent(text)}`)
          .set(auth());
        return { res: answer(res), param: 'path', mcp: false };
      }
      case 'mcp': {
        const res = await mcpCall(mcpFileArgs({ notes: text, idempotency_key: key }));
        return { res: answer(res), param: 'notes', mcp: true };
      }
      case 'key': {
        const res = await request(t.url)
          .post('/acp/checkout_sessions')
          .set({
            Authorization: `Bearer ${ws.merchantKey}`,
            'API-Version': '2026-04-17',
            'Idempotency-Key': key,
          })
          .send({
            line_items: [{ id: 'tea', quantity: 1 }],
            currency: 'inr',
            capabilities: {},
            metadata: { ref: { [`id ${text}`]: 'v' } },
          });
        return { res: answer(res), param: '$.metadata.ref', mcp: false };
      }
      case 'filename': {
        const res = await fx.post(
          `/v1/pay/forex/orders/${draftFileId}/documents`,
          {
            kind: 'passport',
            content_type: 'application/pdf',
            content_base64: PDF.toString('base64'),
            filename: `scan ${text}.pdf`,
          },
          key,
        );
        return { res: answer(res), param: '$.filename', mcp: false };
      }
    }
  }

  /** The refusal: named field, code, value never echoed, and no row written anywhere. */
  async function expectRefused(
    n: Rendered,
    place: Place,
    pick: number,
    code: string,
  ): Promise<void> {
    sent.push(n);
    const before = await counts();
    const { res, param, mcp } = await sendIn(place, n.text, pick);
    const after = await counts();
    expect({ place, after }).toEqual({ place, after: before });
    for (const secret of [n.digits, n.core, n.text]) {
      expect(res.text).not.toContain(secret);
    }
    if (mcp) {
      expect(res.status).toBe(200);
      const result = (res.body as { result: { isError: boolean; content: { text: string }[] } })
        .result;
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(new RegExp(`^${param}: .*\\(code: ${code}\\)$`));
      return;
    }
    expect({ place, status: res.status }).toEqual({ place, status: 400 });
    const body = res.body as { error?: { code: string; param?: string }; code?: string };
    const error = body.error ?? (body as { code: string; param?: string });
    expect(error).toMatchObject({ code, param });
  }

  describe('Aadhaar', () => {
    it('is refused in every place, in any script, separator and grouping (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          embedded(rendered(aadhaarNumber)),
          fc.constantFrom(...PLACES),
          fc.nat(),
          (n, place, pick) => expectRefused(n, place, pick, 'aadhaar_not_collected'),
        ),
        RUNS,
      );
    });

    it('is refused as a whole path segment after a word, whatever joins its groups', async () => {
      // Found by the property above (seed 1066839828): in a path, `/` ends a segment, so the
      // number after `orders/` is not a reference joined to a word.
      for (const text of ['2000–0000_0009', '2000_0000_0009', '2000-0000-0009', '200000000009']) {
        await expectRefused(
          { text, digits: '200000000009', core: text },
          'path',
          0,
          'aadhaar_not_collected',
        );
      }
    });

    it('is refused in the Idempotency-Key header, which is neither echoed nor logged', async () => {
      const [n] = fc.sample(rendered(aadhaarNumber), 1);
      const ascii = n.digits.replace(/(\d{4})(\d{4})(\d{4})/, '$1-$2-$3');
      sent.push({ ...n, core: ascii, text: ascii });
      const before = await counts();
      const res = await fx.createFile(travelFile(t, ws, partner.partnerId), `key ${ascii}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'aadhaar_not_collected',
        param: 'Idempotency-Key',
      });
      expect(res.headers['idempotency-key']).toBeUndefined();
      expect(await counts()).toEqual(before);
    });

    it('passes Verhoeff-invalid numbers, amounts, our ids, timestamps and phone numbers', async () => {
      await fc.assert(
        fc.asyncProperty(
          embedded(rendered(notAadhaarNumber)),
          fc.integer({ min: 0, max: 9_999_999_999 }),
          fc.integer({ min: 6_000_000_000, max: 9_999_999_999 }),
          fc.date({
            min: new Date('2000-01-01'),
            max: new Date('2099-12-31'),
            noInvalidDate: true,
          }),
          async (invalid, paise, mobile, date) => {
            const m = String(mobile);
            const notes = [
              invalid.text,
              `₹${(paise / 100).toFixed(2)}`,
              String(paise),
              newId('pay'),
              randomUUID(),
              date.toISOString(),
              `+91 ${m.slice(0, 5)} ${m.slice(5)}`,
              m,
            ].join(' | ');
            const res = await fx.createFile(
              travelFile(t, ws, partner.partnerId, { notes, traveller_name: `Asha ${m}` }),
            );
            expect({ notes, status: res.status }).toEqual({ notes, status: 201 });
          },
        ),
        { numRuns: 30 },
      );
    });

    it('leaves the signed gateway webhook to its signature check', async () => {
      const [n] = fc.sample(aadhaarNumber, 1);
      const res = await request(t.url)
        .post('/v1/webhooks/gateway')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ id: 'evt_1', type: 'payment.captured', note: n }));
      expect(res.status).not.toBe(400);
      expect(res.text).not.toContain('aadhaar_not_collected');
    });
  });

  describe('PAN outside the pan field', () => {
    it('is refused in every place, in any case, width, script and spacing (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          embedded(panToken),
          fc.constantFrom(...PLACES),
          fc.nat(),
          (n, place, pick) => expectRefused(n, place, pick, 'pan_in_free_text'),
        ),
        RUNS,
      );
    });

    it('is accepted in the pan field, over REST and MCP, and kept only masked and hashed', async () => {
      const pan = randomPan();
      const rest = await fx.createFile(
        travelFile(t, ws, partner.partnerId, { pan: ` ${pan.toLowerCase()} ` }),
      );
      expect(rest.status).toBe(201);
      const viaMcp = await mcpCall(mcpFileArgs({ pan: randomPan() }));
      expect(viaMcp.status).toBe(200);
      expect(viaMcp.body.result.isError).toBeUndefined();
      // The masked form (XXXXX1234X) is not a PAN: it may be shown anywhere.
      const masked = await fx.createFile(
        travelFile(t, ws, partner.partnerId, { notes: `PAN on file ${rest.body.pan_masked}` }),
      );
      expect(masked.status).toBe(201);
    });

    it('is refused in another MCP argument of the same call', async () => {
      const res = await mcpCall(mcpFileArgs({ traveller_name: `Asha ${randomPan()}` }));
      expect(res.body.result).toMatchObject({ isError: true });
      expect(res.body.result.content[0].text).toMatch(
        /^traveller_name: .*\(code: pan_in_free_text\)$/,
      );
    });
  });

  describe('key material is exempt by route and path, not by member name', () => {
    /** An Ed25519 key whose JWK `x` and whose PEM both hold `pan` between base64 separators. */
    function keyHolding(pan: string): { jwk: Record<string, string>; pem: string } {
      const x = `AAAA-${pan}-${'B'.repeat(43)}`.slice(0, 42) + 'A';
      const jwk = { kty: 'OKP', crv: 'Ed25519', x };
      const pem = createPublicKey({ key: jwk, format: 'jwk' })
        .export({ type: 'spki', format: 'pem' })
        .toString();
      return { jwk, pem };
    }

    async function expectPanRefused(
      send: () => Promise<request.Response>,
      pan: string,
      param: string,
      code = 'pan_in_free_text',
    ): Promise<void> {
      sent.push({ text: pan, digits: pan, core: pan });
      const before = await counts();
      const res = await send();
      expect(res.status).toBe(400);
      expect(res.text).not.toContain(pan);
      const body = res.body as {
        error?: { code: string; param?: string };
        messages?: { code: string; path?: string }[];
      };
      // /ucp answers UCP's error_response (docs/ucp.md "Errors"): its param is the message's path.
      const ucp = body.messages?.[0];
      expect(body.error ?? (ucp ? { code: ucp.code, param: ucp.path } : res.body)).toMatchObject({
        code,
        param,
      });
      expect(await counts()).toEqual(before);
    }

    it('refuses a PAN in metadata.public_key of a checkout and a delegate_payment body', async () => {
      const pan = randomPan();
      await expectPanRefused(
        () =>
          request(t.url)
            .post('/acp/checkout_sessions')
            .set(acpHeaders(ws.merchantKey, randomUUID()))
            .send({
              line_items: [{ id: 'tea', quantity: 1 }],
              currency: 'inr',
              capabilities: {},
              metadata: { public_key: pan },
            }),
        pan,
        '$.metadata.public_key',
      );
      const other = randomPan();
      // delegate_payment's Error.code is a closed enum: the refusal goes out as invalid_card
      // (src/common/errors/error-body.ts delegatePaymentCode), param and message as everywhere.
      await expectPanRefused(
        () =>
          request(t.url)
            .post('/acp/agentic_commerce/delegate_payment')
            .set(acpHeaders(ws.buyerKey, randomUUID()))
            .send({
              payment_method: { type: 'svc_mandate', mandate_id: 'mdt_x' },
              allowance: {
                reason: 'one_time',
                max_amount: 100,
                currency: 'inr',
                checkout_session_id: 'cs_x',
                merchant_id: ws.seller.id,
                expires_at: new Date(Date.now() + 3600_000).toISOString(),
              },
              risk_signals: [],
              metadata: { public_key: { x: other } },
            }),
        other,
        '$.metadata.public_key.x',
        'invalid_card',
      );
    });

    it('refuses a PAN in a public_key member of an MCP tool argument', async () => {
      const pan = randomPan();
      sent.push({ text: pan, digits: pan, core: pan });
      const before = await counts();
      const res = await mcpCall(mcpFileArgs({ notes: 'ok', metadata: { public_key: pan } }));
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(pan);
      expect(res.body.result.isError).toBe(true);
      expect(res.body.result.content[0].text).toMatch(
        /^metadata\.public_key: .*\(code: pan_in_free_text\)$/,
      );
      expect(await counts()).toEqual(before);
    });

    it('accepts key material holding a PAN-shaped run at the documented paths only', async () => {
      const { jwk, pem } = keyHolding(randomPan());
      expect(identityNumberIn(jwk.x)).toBe('pan');
      expect(identityNumberIn(pem)).toBe('pan');
      const v1 = { Authorization: `Bearer ${ws.apiKey}` };
      const agent = await request(t.url)
        .post('/v1/pay/agents')
        .set({ ...v1, 'Idempotency-Key': randomUUID() })
        .send({ name: 'Signing agent', role: 'buyer', public_key: jwk });
      expect(agent.status).toBe(201);
      expect(agent.body.public_key_alg).toBe('ed25519');
      const set = await request(t.url)
        .post(`/v1/pay/agents/${agent.body.id as string}/public-key`)
        .set({ ...v1, 'Idempotency-Key': randomUUID() })
        .send({ public_key: pem });
      expect(set.status).toBe(200);
      const key = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set({ ...v1, 'Idempotency-Key': randomUUID() })
        .send({ role: 'buyer', agent_id: ws.buyer.id, public_key: pem });
      expect(key.status).toBe(201);
      expect(key.body.public_key_alg).toBe('ed25519');
      // Not key material: a JWK member other than x and y, and the same key one level down.
      const kid = randomPan();
      await expectPanRefused(
        () =>
          request(t.url)
            .post('/v1/pay/protocol-keys')
            .set({ ...v1, 'Idempotency-Key': randomUUID() })
            .send({ role: 'buyer', agent_id: ws.buyer.id, public_key: { ...jwk, kid } }),
        kid,
        '$.public_key.kid',
      );
      const nestedPan = randomPan();
      await expectPanRefused(
        () =>
          request(t.url)
            .post('/v1/pay/agents')
            .set({ ...v1, 'Idempotency-Key': randomUUID() })
            .send({
              name: 'Nested',
              role: 'buyer',
              metadata: { public_key: keyHolding(nestedPan).pem },
            }),
        nestedPan,
        '$.metadata.public_key',
      );
    });

    it('refuses a PAN or Aadhaar in the UCP-Agent profile URL, as MCP does in meta', async () => {
      const pan = randomPan();
      const [aadhaar] = fc.sample(aadhaarNumber, 1);
      const profiles: [string, string, string][] = [
        [pan, `https://platform.example/agents/${pan}/profile.json`, 'pan_in_free_text'],
        [
          pan,
          `https://platform.example/p/%${pan.charCodeAt(0).toString(16)}${pan.slice(1)}`,
          'pan_in_free_text',
        ],
        [aadhaar, `https://platform.example/profile?uid=${aadhaar}`, 'aadhaar_not_collected'],
      ];
      for (const [secret, profile, code] of profiles) {
        await expectPanRefused(
          () =>
            request(t.url)
              .post('/ucp/checkout-sessions')
              .set({
                Authorization: `Bearer ${ws.merchantKey}`,
                'UCP-Agent': `profile="${profile}"`,
                'Idempotency-Key': randomUUID(),
              })
              .send({ line_items: [{ item: { id: 'tea' }, quantity: 1 }] }),
          secret,
          'UCP-Agent',
          code,
        );
        const before = await counts();
        const res = await request(t.url)
          .post('/mcp?protocol=ucp')
          .set({
            Authorization: `Bearer ${ws.merchantKey}`,
            Accept: 'application/json, text/event-stream',
          })
          .send({
            jsonrpc: '2.0',
            id: 9,
            method: 'tools/call',
            params: {
              name: 'create_checkout',
              arguments: {
                meta: { 'ucp-agent': { profile } },
                checkout: { line_items: [{ item: { id: 'tea' }, quantity: 1 }] },
              },
            },
          });
        expect(res.status).toBe(200);
        expect(res.text).not.toContain(secret);
        expect(res.body.result.isError).toBe(true);
        expect(res.body.result.content[0].text).toContain(`(code: ${code})`);
        expect(await counts()).toEqual(before);
      }
    });
  });

  it('leaves no trace in the database dump or the logs', async () => {
    const { stdout: dump } = await promisify(execFile)('pg_dump', [await testDatabaseUrl()], {
      maxBuffer: 512 * 1024 * 1024,
    });
    const logText = logs.join('');
    expect(logText).toContain('/v1/pay/forex/orders');
    expect(logText).toContain(WITHHELD);
    expect(sent.length).toBeGreaterThan(150);
    for (const n of sent) {
      for (const secret of new Set([n.digits, n.core])) {
        expect({ secret, inDump: dump.includes(secret), inLogs: logText.includes(secret) }).toEqual(
          {
            secret,
            inDump: false,
            inLogs: false,
          },
        );
      }
    }
  });
});
