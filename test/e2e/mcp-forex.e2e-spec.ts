import { createHash, randomUUID } from 'node:crypto';
import { AddressInfo, createServer, Server } from 'node:net';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { canonicalJson } from '../../src/common/canonical-json';
import { verhoeffCheckDigit } from '../../src/forex/aadhaar';
import {
  PDF,
  PNG,
  randomPan,
  readyTravelFile,
  registerPartner,
  SeededPartner,
  travelFile,
} from '../factories/forex.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

interface ObjectSchema {
  type: string;
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean;
}

interface FileOut {
  id: string;
  status: string;
  pan_masked: string;
  checklist: { complete: boolean; missing: string[] };
  documents: { id: string; kind: string }[];
  quote: { id: string; total_paise: number } | null;
  declaration: { status: string; url: string };
  replayed?: boolean;
}

interface QuoteOut {
  id: string;
  file_id: string;
  rupees_paise: number;
  fee_paise: number;
  total_paise: number;
  lines: { foreign_amount: string; rate: number; rupees_paise: number }[];
  rate_locked_until: string;
  replayed: boolean;
}

const structured = <T>(r: CallToolResult): T => r.structuredContent as T;

/** A 12-digit number that passes the Aadhaar checks (first digit 2–9, Verhoeff check digit). */
const AADHAAR = (() => {
  const body = '23456789012'.slice(0, 11);
  return `${body}${verhoeffCheckDigit(body)}`;
})();

/**
 * The forex tools of /mcp through the MCP SDK's own client, on real Postgres: partners and rates,
 * a whole file opened, documented, quoted and submitted through MCP alone (database state checked
 * at each step, replays by idempotency_key), and the refusals: another agent's file, amounts that
 * are not decimal strings, the document given twice or not at all, a type mismatch, a loopback URL
 * (no connection opened), Aadhaar, a lapsed rate lock (test clock), the PAN never echoed or hashed
 * raw.
 */
describe('MCP forex tools (/mcp)', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let partner: SeededPartner;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    partner = await registerPartner(t);
  });
  afterEach(async () => {
    t.clock.reset();
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(() => t.close());

  async function connect(credential = ws.buyer.credential): Promise<Client> {
    const client = new Client({ name: 'e2e-forex', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${credential}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  async function call(
    client: Client,
    name: string,
    args: Record<string, unknown>,
  ): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  function textOf(result: CallToolResult): string {
    const first = result.content[0];
    return first?.type === 'text' ? first.text : '';
  }

  function expectError(result: CallToolResult, pattern: RegExp): void {
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(pattern);
    expect(textOf(result)).not.toMatch(/\bat .*\.(ts|js):\d+/);
  }

  async function fileRow(id: string) {
    const [row] = await t.db.query<
      { status: string; current_quote_id: string | null; pan_hash: string; pan_masked: string }[]
    >('SELECT status, current_quote_id, pan_hash, pan_masked FROM forex_files WHERE id = $1', [id]);
    return row;
  }

  async function documentRows(fileId: string) {
    return t.db.query<{ id: string; kind: string; sha256: string; size_bytes: number }[]>(
      'SELECT id, kind, sha256, size_bytes FROM forex_documents WHERE file_id = $1 ORDER BY created_at',
      [fileId],
    );
  }

  async function quoteCount(fileId: string): Promise<number> {
    const [{ n }] = await t.db.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM forex_quotes WHERE file_id = $1',
      [fileId],
    );
    return n;
  }

  /** create_forex_file arguments for a travel file of ws's person. */
  function createArgs(over: Record<string, unknown> = {}): Record<string, unknown> {
    const body = travelFile(t, ws, partner.partnerId);
    return { ...body, idempotency_key: randomUUID(), ...over };
  }

  async function createFile(client: Client, over: Record<string, unknown> = {}): Promise<string> {
    const created = await call(client, 'create_forex_file', createArgs(over));
    expect(textOf(created)).not.toMatch(/isError/);
    expect(created.isError).toBeFalsy();
    return structured<FileOut>(created).id;
  }

  describe('listing', () => {
    it('lists the forex tools with precise input schemas', async () => {
      const client = await connect();
      const { tools } = await client.listTools();
      const names = tools.map((x) => x.name);
      for (const name of [
        'get_forex_rates',
        'create_forex_file',
        'forex_quote',
        'upload_document',
        'submit_file',
        'file_status',
      ]) {
        expect(names).toContain(name);
      }
      const byName = Object.fromEntries(tools.map((x) => [x.name, x]));
      for (const tool of tools) {
        expect((tool.inputSchema as ObjectSchema).additionalProperties).toBe(false);
        expect(tool.outputSchema).toBeDefined();
      }

      const quote = byName.forex_quote.inputSchema as ObjectSchema;
      expect(quote.required).toEqual(['file_id', 'lines', 'idempotency_key']);
      expect(quote.properties.file_id.pattern).toBe('^fxo_[A-Za-z0-9]{1,64}$');
      const lines = quote.properties.lines as {
        minItems: number;
        maxItems: number;
        items: ObjectSchema;
      };
      expect([lines.minItems, lines.maxItems]).toEqual([1, 10]);
      expect(lines.items.required).toEqual(['currency', 'amount', 'product']);
      expect(lines.items.properties.currency.enum).toEqual([
        'USD',
        'EUR',
        'GBP',
        'AED',
        'SGD',
        'JPY',
        'THB',
      ]);
      expect(lines.items.properties.amount).toMatchObject({
        type: 'string',
        maxLength: 40,
        pattern: '^[0-9]+(\\.[0-9]+)?$',
      });
      expect(lines.items.properties.product.enum).toEqual(['notes', 'card', 'remittance']);

      const upload = byName.upload_document.inputSchema as ObjectSchema;
      expect(upload.required).toEqual(['file_id', 'kind', 'content_type']);
      expect(upload.properties.kind.enum).not.toContain('aadhaar');
      expect(upload.properties.kind.enum).toContain('passport');
      expect(upload.properties.content_type.enum).toEqual([
        'application/pdf',
        'image/jpeg',
        'image/png',
      ]);
      expect(upload.properties.content_base64.maxLength).toBe(6_666_668);
      expect(upload.properties.url).toMatchObject({ type: 'string', maxLength: 2048 });

      const create = byName.create_forex_file.inputSchema as ObjectSchema;
      expect(create.required).toEqual(
        expect.arrayContaining(['partner_id', 'kind', 'purpose_code', 'pan', 'idempotency_key']),
      );
      expect(create.properties.pan.maxLength).toBe(20);
      expect((byName.submit_file.inputSchema as ObjectSchema).required).toEqual(['file_id']);
      expect((byName.file_status.inputSchema as ObjectSchema).required).toEqual(['file_id']);
      expect((byName.get_forex_rates.inputSchema as ObjectSchema).required ?? []).toEqual([]);
      expect(byName.get_forex_rates.annotations?.readOnlyHint).toBe(true);
      expect(byName.file_status.annotations?.readOnlyHint).toBe(true);
    });
  });

  describe('get_forex_rates', () => {
    it("returns one partner's rates as in the database, and every partner when partner_id is omitted", async () => {
      const client = await connect();
      const one = await call(client, 'get_forex_rates', { partner_id: partner.partnerId });
      expect(one.isError).toBeFalsy();
      const out = structured<{
        partners: {
          id: string;
          service_fee_paise: number;
          rates: {
            currency: string;
            card_remittance: { sell: number };
            market_quotes_per: number;
          }[];
        }[];
      }>(one);
      expect(out.partners).toHaveLength(1);
      expect(out.partners[0]).toMatchObject({ id: partner.partnerId, service_fee_paise: 50_000 });
      const [usd] = await t.db.query<{ card_sell: string }[]>(
        "SELECT card_sell::text FROM forex_rates WHERE partner_id = $1 AND currency = 'USD'",
        [partner.partnerId],
      );
      const rates = Object.fromEntries(out.partners[0].rates.map((r) => [r.currency, r]));
      expect(rates.USD.card_remittance.sell).toBe(Number(usd.card_sell));
      expect(rates.JPY.market_quotes_per).toBe(100);

      const all = structured<{ partners: { id: string }[]; has_more: boolean }>(
        await call(client, 'get_forex_rates', {}),
      );
      expect(all.partners.length).toBeGreaterThan(0);
      // Newest first: ours unless another run registered more than a page since.
      expect(all.partners.some((p) => p.id === partner.partnerId) || all.has_more).toBe(true);

      expectError(
        await call(client, 'get_forex_rates', { partner_id: 'fxp_nope' }),
        /^partner_id: No forex partner fxp_nope \(code: forex_partner_not_found\)$/,
      );
    });
  });

  describe('the whole flow through MCP alone', () => {
    it('opens, documents, quotes and submits a file; replays by idempotency_key', async () => {
      const client = await connect();
      const pan = randomPan();
      const args = createArgs({ pan });
      const created = await call(client, 'create_forex_file', args);
      expect(created.isError).toBeFalsy();
      const file = structured<FileOut>(created);
      expect(file).toMatchObject({ status: 'draft', replayed: false });
      expect(file.pan_masked).toBe(`XXXXX${pan.slice(5)}`);
      expect(JSON.stringify(created)).not.toContain(pan);
      const row = await fileRow(file.id);
      expect(row).toMatchObject({ status: 'draft', pan_masked: `XXXXX${pan.slice(5)}` });
      expect(row.pan_hash).toMatch(/^[0-9a-f]{64}$/);

      // The idempotency record is computed over the PAN's digest, never the PAN.
      const [record] = await t.db.query<{ request_hash: string; response_raw: string }[]>(
        "SELECT request_hash, response_raw FROM idempotency_records WHERE owner_id = $1 AND path = '/v1/pay/forex/orders' AND key = $2",
        [`agent:${ws.buyer.id}`, args.idempotency_key],
      );
      expect(record).toBeDefined();
      expect(record.response_raw).not.toContain(pan);
      const rest: Record<string, unknown> = { ...args };
      delete rest.idempotency_key;
      delete rest.pan;
      const sha = (body: object) => createHash('sha256').update(canonicalJson(body)).digest('hex');
      const [{ pan_key_version: version }] = await t.db.query<{ pan_key_version: number }[]>(
        'SELECT pan_key_version FROM forex_files WHERE id = $1',
        [file.id],
      );
      expect(record.request_hash).toBe(sha({ ...rest, pan: `hmac:${version}:${row.pan_hash}` }));
      expect(record.request_hash).not.toBe(sha({ ...rest, pan }));

      const again = await call(client, 'create_forex_file', args);
      expect(structured<FileOut>(again)).toMatchObject({ id: file.id, replayed: true });
      const [{ n: files }] = await t.db.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM forex_files WHERE agent_id = $1 AND pan_masked = $2',
        [ws.buyer.id, `XXXXX${pan.slice(5)}`],
      );
      expect(files).toBe(1);
      expectError(
        await call(client, 'create_forex_file', { ...args, traveller_name: 'Someone Else' }),
        /idempotency_conflict/,
      );

      // Documents as base64; the stored hash is that of the bytes.
      for (const kind of ['passport', 'visa']) {
        const up = await call(client, 'upload_document', {
          file_id: file.id,
          kind,
          content_type: 'application/pdf',
          content_base64: PDF.toString('base64'),
          filename: `${kind}.pdf`,
        });
        expect(up.isError).toBeFalsy();
        expect(structured<{ kind: string; sha256: string; replayed: boolean }>(up)).toMatchObject({
          kind,
          sha256: createHash('sha256').update(PDF).digest('hex'),
          replayed: false,
        });
      }
      const docs = await documentRows(file.id);
      expect(docs.map((d) => [d.kind, d.size_bytes])).toEqual([
        ['passport', PDF.length],
        ['visa', PDF.length],
      ]);

      // A retried upload with its key stores nothing more.
      const key = randomUUID();
      const ticket = {
        file_id: file.id,
        kind: 'ticket',
        content_type: 'image/png',
        content_base64: PNG.toString('base64'),
        idempotency_key: key,
      };
      const first = structured<{ id: string }>(await call(client, 'upload_document', ticket));
      const second = structured<{ id: string; replayed: boolean }>(
        await call(client, 'upload_document', ticket),
      );
      expect(second).toMatchObject({ id: first.id, replayed: true });
      expect(await documentRows(file.id)).toHaveLength(3);

      // Quote: exact rupees, locked; the same key replays the same quote.
      const quoteArgs = {
        file_id: file.id,
        lines: [{ currency: 'USD', amount: '1500.50', product: 'card' }],
        idempotency_key: randomUUID(),
      };
      const quoted = await call(client, 'forex_quote', quoteArgs);
      expect(quoted.isError).toBeFalsy();
      const quote = structured<QuoteOut>(quoted);
      expect(quote.lines[0].foreign_amount).toBe('1500.50');
      expect(quote.total_paise).toBe(quote.rupees_paise + quote.fee_paise);
      expect(quote.replayed).toBe(false);
      expect(await fileRow(file.id)).toMatchObject({
        status: 'quoted',
        current_quote_id: quote.id,
      });
      const replay = structured<QuoteOut>(await call(client, 'forex_quote', quoteArgs));
      expect(replay).toMatchObject({ id: quote.id, replayed: true });
      expect(await quoteCount(file.id)).toBe(1);
      expectError(
        await call(client, 'forex_quote', {
          ...quoteArgs,
          lines: [{ currency: 'USD', amount: '1500.51', product: 'card' }],
        }),
        /idempotency_conflict/,
      );

      // Status and submit.
      const status = structured<FileOut>(await call(client, 'file_status', { file_id: file.id }));
      expect(status).toMatchObject({ status: 'quoted', checklist: { complete: true } });
      expect(status.quote?.id).toBe(quote.id);
      expect(status.documents).toHaveLength(3);
      const submitted = await call(client, 'submit_file', {
        file_id: file.id,
        idempotency_key: randomUUID(),
      });
      expect(submitted.isError).toBeFalsy();
      const out = structured<FileOut & { next_step: string }>(submitted);
      expect(out).toMatchObject({
        status: 'awaiting_declaration',
        declaration: { status: 'awaiting' },
        replayed: false,
      });
      expect(out.declaration.url).toContain(`/forex/declarations/${file.id}`);
      expect(out.next_step).toContain(out.declaration.url);
      expect((await fileRow(file.id)).status).toBe('awaiting_declaration');
      // A second submit without a key meets the new state.
      expectError(
        await call(client, 'submit_file', { file_id: file.id }),
        /^file_id: .*awaiting_declaration.*\(code: forex_file_state\)$/,
      );
    });
  });

  describe('refusals', () => {
    it("answers another agent's file as not found and changes nothing", async () => {
      const { fileId } = await readyTravelFile(t, other, partner.partnerId);
      const before = await fileRow(fileId);
      const client = await connect();
      const notFound = new RegExp(
        `^file_id: No forex file ${fileId} \\(code: forex_file_not_found\\)$`,
      );
      expectError(await call(client, 'file_status', { file_id: fileId }), notFound);
      expectError(
        await call(client, 'forex_quote', {
          file_id: fileId,
          lines: [{ currency: 'USD', amount: '10', product: 'card' }],
          idempotency_key: randomUUID(),
        }),
        notFound,
      );
      expectError(
        await call(client, 'upload_document', {
          file_id: fileId,
          kind: 'ticket',
          content_type: 'application/pdf',
          content_base64: PDF.toString('base64'),
        }),
        notFound,
      );
      expectError(await call(client, 'submit_file', { file_id: fileId }), notFound);
      expect(await fileRow(fileId)).toEqual(before);
      expect(await documentRows(fileId)).toHaveLength(2);
      expect(await quoteCount(fileId)).toBe(1);
    });

    it('refuses amounts that are not decimal strings, and too many decimals for the currency', async () => {
      const client = await connect();
      const fileId = await createFile(client);
      const quote = (amount: unknown, currency = 'USD') =>
        call(client, 'forex_quote', {
          file_id: fileId,
          lines: [{ currency, amount, product: 'card' }],
          idempotency_key: randomUUID(),
        });
      for (const amount of ['1e3', '-5', '1,000', '5.', ' 10', 1000]) {
        expectError(await quote(amount), /amount/);
      }
      expectError(await quote('10.001'), /^lines\[0\]\.amount: .*\(code: invalid_amount\)$/);
      expectError(await quote('5.5', 'JPY'), /\(code: invalid_amount\)$/);
      expectError(await quote('10', 'CHF'), /currency/);
      expectError(
        await call(client, 'forex_quote', {
          file_id: fileId,
          lines: [{ currency: 'USD', amount: '10', product: 'card' }],
        }),
        /idempotency_key/,
      );
      expect(await quoteCount(fileId)).toBe(0);
      expect((await fileRow(fileId)).status).toBe('draft');
    });

    it('takes the document as content_base64 or url, exactly one, of the declared type', async () => {
      const client = await connect();
      const fileId = await createFile(client);
      const base = { file_id: fileId, kind: 'passport', content_type: 'application/pdf' };
      expectError(
        await call(client, 'upload_document', base),
        /give the document as content_base64 or as url at content_base64/,
      );
      expectError(
        await call(client, 'upload_document', {
          ...base,
          content_base64: PDF.toString('base64'),
          url: 'https://example.com/passport.pdf',
        }),
        /give content_base64 or url, not both at url/,
      );
      expectError(
        await call(client, 'upload_document', { ...base, content_base64: PNG.toString('base64') }),
        /^content_base64: The document was declared application\/pdf but its bytes are image\/png \(code: document_type_mismatch\)$/,
      );
      expectError(
        await call(client, 'upload_document', { ...base, content_base64: 'not base64!' }),
        /\(code: document_not_base64\)$/,
      );
      expectError(
        await call(client, 'upload_document', { ...base, url: 'http://example.com/a.pdf' }),
        /must be an https URL at url/,
      );
      expect(await documentRows(fileId)).toHaveLength(0);
    });

    it('refuses a URL on a loopback address without opening a connection', async () => {
      // A listener on 443 of a loopback address of its own, so the URL needs no port.
      const host = `127.${50 + Math.floor(Math.random() * 150)}.${Math.floor(Math.random() * 250)}.${
        1 + Math.floor(Math.random() * 250)
      }`;
      let connections = 0;
      const server: Server = createServer((s) => {
        connections++;
        s.destroy();
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(443, host, resolve);
      });
      try {
        expect((server.address() as AddressInfo).port).toBe(443);
        const client = await connect();
        const fileId = await createFile(client);
        const refused = await call(client, 'upload_document', {
          file_id: fileId,
          kind: 'passport',
          content_type: 'application/pdf',
          url: `https://${host}/passport.pdf`,
        });
        expectError(refused, /^url: .*loopback.*\(code: url_address_refused\)$/);
        expect(connections).toBe(0);
        expect(await documentRows(fileId)).toHaveLength(0);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('refuses Aadhaar: as a document kind, in metadata, in a file', async () => {
      const client = await connect();
      const fileId = await createFile(client);
      const kind = await call(client, 'upload_document', {
        file_id: fileId,
        kind: 'aadhaar',
        content_type: 'application/pdf',
        content_base64: PDF.toString('base64'),
      });
      expectError(kind, /an Aadhaar card is never accepted: aadhaar_not_collected\) at kind/);
      const named = await call(client, 'upload_document', {
        file_id: fileId,
        kind: 'other',
        content_type: 'application/pdf',
        content_base64: PDF.toString('base64'),
        filename: `scan ${AADHAAR}.pdf`,
      });
      expectError(named, /^filename: .*\(code: aadhaar_not_collected\)$/);
      expect(textOf(named)).not.toContain(AADHAAR);
      expect(await documentRows(fileId)).toHaveLength(0);

      const key = randomUUID();
      const file = await call(
        client,
        'create_forex_file',
        createArgs({ notes: `Aadhaar ${AADHAAR}`, idempotency_key: key }),
      );
      expectError(file, /^notes: .*\(code: aadhaar_not_collected\)$/);
      expect(textOf(file)).not.toContain(AADHAAR);
      const records = await t.db.query('SELECT 1 FROM idempotency_records WHERE key = $1', [key]);
      expect(records).toHaveLength(0);
    });

    it('never echoes a PAN, refuses a seller-only agent, and the wrong holder type', async () => {
      const client = await connect();
      const badPan = 'ABCDE12345';
      const bad = await call(client, 'create_forex_file', createArgs({ pan: badPan }));
      expectError(bad, /pan/);
      expect(textOf(bad)).not.toContain(badPan);
      const company = randomPan('C');
      const wrongHolder = await call(client, 'create_forex_file', createArgs({ pan: company }));
      expectError(wrongHolder, /^pan: .*\(code: invalid_pan_holder_type\)$/);
      expect(textOf(wrongHolder)).not.toContain(company);

      const seller = await connect(ws.seller.credential);
      expectError(
        await call(seller, 'create_forex_file', createArgs()),
        /\(code: wrong_agent_role\)$/,
      );
    });

    it('asks for a fresh quote once the rate lock lapsed (test clock), then submits', async () => {
      const { fileId } = await readyTravelFile(t, ws, partner.partnerId);
      const client = await connect();
      t.clock.advance(15 * 60_000);
      const lapsed = await call(client, 'submit_file', { file_id: fileId });
      expectError(
        lapsed,
        /^file_id: the rate lock lapsed at .*call forex_quote for a fresh quote, then submit_file again \(code: rate_lock_lapsed\)$/,
      );
      expect((await fileRow(fileId)).status).toBe('quoted');
      const fresh = await call(client, 'forex_quote', {
        file_id: fileId,
        lines: [{ currency: 'USD', amount: '1000', product: 'card' }],
        idempotency_key: randomUUID(),
      });
      expect(fresh.isError).toBeFalsy();
      const submitted = await call(client, 'submit_file', { file_id: fileId });
      expect(structured<FileOut>(submitted).status).toBe('awaiting_declaration');
      expect(await fileRow(fileId)).toMatchObject({
        status: 'awaiting_declaration',
        current_quote_id: structured<QuoteOut>(fresh).id,
      });
    });
  });
});
