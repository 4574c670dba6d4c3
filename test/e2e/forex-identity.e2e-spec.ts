import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { randomToken } from '../../src/common/ids';
import { verhoeffCheckDigit } from '../../src/forex/aadhaar';
import {
  forexClient,
  PDF,
  randomPan,
  readyTravelFile,
  registerPartner,
  SeededPartner,
  travelFile,
} from '../factories/forex.factory';
import { startAppCapturingLogs, TestApp, testDatabaseUrl } from '../support/app';
import { seedWorkspace } from '../support/seed';

/**
 * Identity data over HTTP. The raw PAN is never stored, logged, returned or put on a receipt:
 * after files are created (and refused, and replayed), a pg_dump of the whole test database and
 * every log line the app wrote (request logs and the Nest logger at level trace) hold no raw PAN.
 * Aadhaar is never collected: a Verhoeff-valid 12-digit number in any free-text field of a file,
 * a quote or a document is refused, and nothing is stored, not even the idempotency record.
 */
describe('forex identity data (PAN, Aadhaar)', () => {
  let t: TestApp;
  let partner: SeededPartner;
  const logs: string[] = [];

  beforeAll(async () => {
    t = await startAppCapturingLogs(logs);
    partner = await registerPartner(t);
  });
  afterAll(() => t.close());

  async function pgDump(): Promise<string> {
    const { stdout } = await promisify(execFile)('pg_dump', [await testDatabaseUrl()], {
      maxBuffer: 512 * 1024 * 1024,
    });
    return stdout;
  }

  it('never stores, logs, returns or signs the raw PAN', async () => {
    const ws = await seedWorkspace(t);
    const fx = forexClient(t, ws.buyer.credential);
    const pan = randomPan();
    const corporatePan = randomPan('C');
    const key = `k-pan-${randomToken(8)}`;
    const body = travelFile(t, ws, partner.partnerId, { pan: pan.toLowerCase() });
    const created = await fx.createFile(body, key);
    expect(created.status).toBe(201);
    const replay = await fx.createFile(body, key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    // A refused holder type and a malformed PAN are not echoed either.
    const refused = await fx.createFile({ ...body, pan: corporatePan });
    expect(refused.body.error.code).toBe('invalid_pan_holder_type');
    const malformed = await fx.createFile({ ...body, pan: `${pan}9` });
    expect(malformed.body.error.code).toBe('invalid_pan');
    const fileId = created.body.id as string;
    for (const kind of ['passport', 'visa']) {
      await fx.upload(fileId, kind, PDF).expect(201);
    }
    await fx.quote(fileId, [{ currency: 'USD', amount: '100', product: 'card' }]).expect(201);
    const submitted = await fx.submit(fileId);
    expect(submitted.status).toBe(200);
    const receipt = await fx.get(`/v1/pay/forex/orders/${fileId}/receipt`).expect(200);

    const answers = [created, replay, refused, malformed, submitted, receipt]
      .map((r) => JSON.stringify(r.body))
      .join('\n');
    const dump = await pgDump();
    const logText = logs.join('');
    expect(logText.length).toBeGreaterThan(0);
    expect(logText).toContain('/v1/pay/forex/orders');
    for (const secret of [pan, pan.toLowerCase(), corporatePan, `${pan}9`]) {
      expect(answers).not.toContain(secret);
      expect(dump).not.toContain(secret);
      expect(logText).not.toContain(secret);
    }
    // What is kept: the masked form and a keyed hash (64 hex), under key version 1.
    const [row] = await t.db.query(
      `SELECT pan_masked, pan_hash, pan_key_version FROM forex_files WHERE id = $1`,
      [fileId],
    );
    expect(row).toMatchObject({ pan_masked: `XXXXX${pan.slice(5)}`, pan_key_version: 1 });
    expect(row.pan_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(dump).toContain(row.pan_masked);
    // The same PAN under a lower-case spelling is the same person (one hash).
    const again = await fx.createFile(travelFile(t, ws, partner.partnerId, { pan }));
    const [other] = await t.db.query(`SELECT pan_hash FROM forex_files WHERE id = $1`, [
      again.body.id,
    ]);
    expect(other.pan_hash).toBe(row.pan_hash);
  });

  describe('Aadhaar is never collected', () => {
    const body11 = '58765432109';
    const aadhaar = `${body11}${verhoeffCheckDigit(body11)}`;
    const grouped = `${aadhaar.slice(0, 4)} ${aadhaar.slice(4, 8)} ${aadhaar.slice(8)}`;

    async function nothingStoredFor(agentId: string, key: string): Promise<void> {
      const [row] = await t.db.query(
        `SELECT (SELECT count(*)::int FROM forex_files WHERE agent_id = $1) AS files,
                (SELECT count(*)::int FROM idempotency_records WHERE key = $2) AS idem`,
        [agentId, key],
      );
      expect(row).toEqual({ files: 0, idem: 0 });
    }

    it.each([
      ['traveller_name', `Asha ${aadhaar}`],
      ['traveller_name', grouped],
      ['beneficiary_name', aadhaar],
      ['company_name', aadhaar],
      ['notes', `my aadhaar is ${grouped}, pls use it`],
      ['person_email', `${aadhaar}@example.test`],
      ['pan', aadhaar],
      ['partner_id', aadhaar],
      ['kind', aadhaar],
    ])('in a new file, field %s', async (field, value) => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const key = `k-aadhaar-${randomToken(8)}`;
      const res = await fx.createFile(
        travelFile(t, ws, partner.partnerId, { [field]: value }),
        key,
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'aadhaar_not_collected', param: `$.${field}` });
      expect(JSON.stringify(res.body)).not.toContain(aadhaar);
      await nothingStoredFor(ws.buyer.id, key);
    });

    it.each([
      ['$.lines[0].amount', { currency: 'USD', amount: aadhaar, product: 'card' }],
      ['$.lines[0].product', { currency: 'USD', amount: '10', product: aadhaar.slice(0, 12) }],
    ])('in a quote, %s', async (param, line) => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const file = (await fx.createFile(travelFile(t, ws, partner.partnerId))).body;
      const key = `k-aadhaar-q-${randomToken(8)}`;
      const res = await fx.quote(file.id, [line], key);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'aadhaar_not_collected', param });
      const [row] = await t.db.query(
        `SELECT (SELECT count(*)::int FROM forex_quotes WHERE file_id = $1) AS quotes,
                (SELECT count(*)::int FROM idempotency_records WHERE key = $2) AS idem`,
        [file.id, key],
      );
      expect(row).toEqual({ quotes: 0, idem: 0 });
    });

    it('in a quote file_id, and as a document kind or content type', async () => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const res = await fx.quote(aadhaar, [{ currency: 'USD', amount: '10', product: 'card' }]);
      expect(res.body.error).toMatchObject({ code: 'aadhaar_not_collected', param: '$.file_id' });
      const { fileId } = await readyTravelFile(t, ws, partner.partnerId);
      const doc = await fx.post(`/v1/pay/forex/orders/${fileId}/documents`, {
        kind: 'passport',
        content_type: `application/pdf; id=${aadhaar}`,
        content_base64: PDF.toString('base64'),
      });
      expect(doc.body.error).toMatchObject({
        code: 'aadhaar_not_collected',
        param: '$.content_type',
      });
    });

    it('leaves no trace in the database dump or the logs', async () => {
      const dump = await pgDump();
      expect(dump).not.toContain(aadhaar);
      expect(dump).not.toContain(grouped);
      expect(logs.join('')).not.toContain(aadhaar);
    });
  });
});
