import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';

import { verhoeffCheckDigit } from '../../src/forex/aadhaar';
import {
  ForexClient,
  forexClient,
  JPEG,
  PDF,
  PNG,
  readyTravelFile,
  registerPartner,
  SeededPartner,
  travelFile,
} from '../factories/forex.factory';
import { startApp, TestApp } from '../support/app';
import { expectContractResponse } from '../support/contract-validator';
import { seedWorkspace } from '../support/seed';

/**
 * Documents of a forex file over HTTP: PDF/JPEG/PNG recognised by magic bytes (the declared type
 * must match), the 5 MB cap at its boundary (MB = 10^6 bytes: 5,000,000 accepted, 5,000,001
 * refused; an oversized Content-Length refused before the body is read), sealed at rest with the
 * SHA-256 on the receipt, Aadhaar refused as a kind and in the metadata, and nothing stored by a
 * refusal.
 */
describe('forex documents', () => {
  let t: TestApp;
  let partner: SeededPartner;

  beforeAll(async () => {
    t = await startApp();
    partner = await registerPartner(t);
  });
  afterAll(() => t.close());

  async function draft(): Promise<{ fx: ForexClient; fileId: string }> {
    const ws = await seedWorkspace(t);
    const fx = forexClient(t, ws.buyer.credential);
    const res = await fx.createFile(travelFile(t, ws, partner.partnerId));
    expect(res.status).toBe(201);
    return { fx, fileId: res.body.id as string };
  }

  const counts = async (fileId: string) => {
    const [row] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM forex_documents WHERE file_id = $1) AS docs,
              (SELECT count(*)::int FROM stored_documents) AS stored`,
      [fileId],
    );
    return row as { docs: number; stored: number };
  };

  it.each([
    ['application/pdf', PDF],
    ['image/jpeg', JPEG],
    ['image/png', PNG],
  ])(
    'accepts %s recognised by its magic bytes, sealed at rest, SHA-256 on the receipt',
    async (type, bytes) => {
      const { fx, fileId } = await draft();
      const res = await fx.upload(fileId, 'passport', bytes, type);
      expect(res.status).toBe(201);
      expectContractResponse('/v1/pay/forex/orders/{id}/documents', 'post', 201, res.body);
      expect(res.body).toMatchObject({
        object: 'forex_document',
        kind: 'passport',
        content_type: type,
        size_bytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      });
      const [stored] = await t.db.query(
        `SELECT s.ciphertext, s.sha256 FROM forex_documents d JOIN stored_documents s ON s.id = d.stored_document_id WHERE d.id = $1`,
        [res.body.id],
      );
      expect(stored.sha256).toBe(res.body.sha256);
      expect((stored.ciphertext as Buffer).includes(bytes)).toBe(false);
      const status = (await fx.status(fileId)).body;
      expect(status.documents).toEqual([expect.objectContaining({ id: res.body.id })]);
      expect(status.documents[0]).not.toHaveProperty('content_base64');
      expect(status.checklist.items.find((i: { key: string }) => i.key === 'passport').status).toBe(
        'done',
      );
      const receipt = (await fx.get(`/v1/pay/forex/orders/${fileId}/receipt`)).body;
      expect(receipt.entries[1].payload).toMatchObject({
        type: 'forex.document_added',
        document_id: res.body.id,
        sha256: res.body.sha256,
      });
    },
  );

  it.each([
    ['image/png', 'PDF bytes', PDF, 415, 'document_type_mismatch'],
    ['application/pdf', 'JPEG bytes', JPEG, 415, 'document_type_mismatch'],
    [
      'application/pdf',
      'text',
      Buffer.from('just some text, not a document'),
      415,
      'document_type_unsupported',
    ],
    ['text/plain', 'PDF bytes', PDF, 415, 'document_type_unsupported'],
    [
      'application/pdf',
      'a cut-short PDF header',
      Buffer.from('%PD'),
      415,
      'document_type_unsupported',
    ],
  ])('refuses declared %s carrying %s', async (type, _label, bytes, status, code) => {
    const { fx, fileId } = await draft();
    const before = await counts(fileId);
    const res = await fx.upload(fileId, 'passport', bytes, type);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(await counts(fileId)).toEqual(before);
  });

  it('takes exactly 5,000,000 bytes and refuses 5,000,001 (MB = 10^6 bytes)', async () => {
    const { fx, fileId } = await draft();
    const atCap = Buffer.alloc(5_000_000, 0x20);
    PDF.copy(atCap);
    const ok = await fx.upload(fileId, 'passport', atCap);
    expect(ok.status).toBe(201);
    expect(ok.body.size_bytes).toBe(5_000_000);
    const before = await counts(fileId);
    const over = Buffer.alloc(5_000_001, 0x20);
    PDF.copy(over);
    const res = await fx.upload(fileId, 'visa', over);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('document_too_large');
    expect(await counts(fileId)).toEqual(before);
  });

  it('refuses a Content-Length above the route limit before reading the body', async () => {
    const { fileId } = await draft();
    const ws = await seedWorkspace(t);
    // Declares 7,000,000 bytes and sends none: the answer comes without the body being read.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${t.url}/v1/pay/forex/orders/${fileId}/documents`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${ws.buyer.credential}`,
          'Content-Type': 'application/json',
          'Content-Length': '7000000',
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(413);
  });

  it('refuses text that is not base64', async () => {
    const { fx, fileId } = await draft();
    const res = await fx.post(`/v1/pay/forex/orders/${fileId}/documents`, {
      kind: 'passport',
      content_type: 'application/pdf',
      content_base64: 'not base64!',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('document_not_base64');
  });

  it.each(['aadhaar', 'Aadhar_card', 'AADHAAR'])(
    'refuses a document of kind %s and stores nothing, not even the idempotency record',
    async (kind) => {
      const { fx, fileId } = await draft();
      const before = await counts(fileId);
      const key = `k-${kind}-${fileId}`;
      const res = await fx.post(
        `/v1/pay/forex/orders/${fileId}/documents`,
        { kind, content_type: 'application/pdf', content_base64: PDF.toString('base64') },
        key,
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'aadhaar_not_collected', param: '$.kind' });
      expect(await counts(fileId)).toEqual(before);
      const idem = await t.db.query(
        `SELECT count(*)::int AS n FROM idempotency_records WHERE key = $1`,
        [key],
      );
      expect(idem[0].n).toBe(0);
    },
  );

  it('refuses an Aadhaar number in the file name', async () => {
    const { fx, fileId } = await draft();
    const aadhaar = `49876543210${verhoeffCheckDigit('49876543210')}`;
    const res = await fx.post(`/v1/pay/forex/orders/${fileId}/documents`, {
      kind: 'passport',
      content_type: 'application/pdf',
      content_base64: PDF.toString('base64'),
      filename: `scan ${aadhaar}.pdf`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'aadhaar_not_collected', param: '$.filename' });
    expect(JSON.stringify(res.body)).not.toContain(aadhaar);
    expect((await counts(fileId)).docs).toBe(0);
  });

  it('refuses an unknown kind, and documents on a submitted file', async () => {
    const { fx, fileId } = await draft();
    const res = await fx.upload(fileId, 'selfie', PDF);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_document_kind');
    const ws = await seedWorkspace(t);
    const ready = await readyTravelFile(t, ws, partner.partnerId);
    await ready.fx.submit(ready.fileId).expect(200);
    const late = await ready.fx.upload(ready.fileId, 'other', PDF);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('forex_file_state');
  });
});
