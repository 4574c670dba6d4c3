import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { connect } from 'node:net';

import request from 'supertest';

import { SealedValueError } from '../../src/common/crypto/sealed';
import { DOCUMENT_UPLOAD_BODY_LIMIT_BYTES } from '../../src/common/http/body-limits';
import { ConfigError } from '../../src/config/app.config';
import { Tx } from '../../src/database/tx';
import { DOCUMENT_MAX_BYTES } from '../../src/documents/document-content';
import {
  DOCUMENT_STORE,
  DocumentStore,
  PostgresDocumentStore,
} from '../../src/documents/document-store';
import { startApp, TestApp } from '../support/app';

/**
 * Documents at rest on real Postgres (docs/documents.md "Documents and outbound fetches"), and the HTTP
 * pipeline's early size refusal on the document upload route.
 */

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('PLAINTEXT-MARKER passport of A. Traveller, '.repeat(40)),
]);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('PostgresDocumentStore', () => {
  let t: TestApp;
  let store: DocumentStore;
  beforeAll(async () => {
    t = await startApp({ runWorkers: false });
    store = t.get<DocumentStore>(DOCUMENT_STORE as never);
  });
  afterAll(() => t.close());

  const rowOf = async (id: string) =>
    (
      await t.db.query<
        {
          content_type: string;
          size_bytes: number;
          sha256: string;
          key_version: number;
          ciphertext: Buffer;
        }[]
      >(`SELECT * FROM stored_documents WHERE id = $1`, [id])
    )[0];

  it('is the Postgres store behind DOCUMENT_STORE', () => {
    expect(store).toBeInstanceOf(PostgresDocumentStore);
  });

  it('stores and returns the bytes, with their SHA-256, encrypted at rest', async () => {
    const ref = await store.put(PNG, 'image/png');
    expect(ref).toEqual({
      id: expect.stringMatching(/^doc_/),
      sha256: sha256(PNG),
      sizeBytes: PNG.length,
    });
    expect(await store.get(ref.id)).toEqual({
      bytes: PNG,
      contentType: 'image/png',
      sha256: sha256(PNG),
    });

    const row = await rowOf(ref.id);
    expect(row).toMatchObject({
      content_type: 'image/png',
      size_bytes: PNG.length,
      sha256: sha256(PNG),
      key_version: 1,
    });
    // AES-GCM: 12-byte IV and 16-byte tag around a ciphertext as long as the plaintext.
    expect(row.ciphertext).toHaveLength(PNG.length + 28);
    expect(row.ciphertext.includes(Buffer.from('PLAINTEXT-MARKER'))).toBe(false);
    expect(row.ciphertext.includes(PNG.subarray(0, 8))).toBe(false);
    const [{ found }] = await t.db.query<{ found: boolean }[]>(
      `SELECT position($1::bytea IN ciphertext) > 0 AS found FROM stored_documents WHERE id = $2`,
      [Buffer.from('PLAINTEXT-MARKER'), ref.id],
    );
    expect(found).toBe(false);
  });

  it('seals each document afresh: the same bytes twice give two ciphertexts', async () => {
    const a = await store.put(PNG, 'image/png');
    const b = await store.put(PNG, 'image/png');
    expect(a.sha256).toBe(b.sha256);
    expect((await rowOf(a.id)).ciphertext.equals((await rowOf(b.id)).ciphertext)).toBe(false);
  });

  it('does not open under another key', async () => {
    const ref = await store.put(PNG, 'image/png');
    const other = new PostgresDocumentStore(t.get(Tx), {
      ...t.config,
      documentEncryptionKey: randomBytes(32),
    });
    await expect(other.get(ref.id)).rejects.toBeInstanceOf(SealedValueError);
  });

  it('does not open once the row is altered (content type, hash) or moved to another id', async () => {
    const ref = await store.put(PNG, 'image/png');
    await t.db.query(`UPDATE stored_documents SET content_type = 'application/pdf' WHERE id = $1`, [
      ref.id,
    ]);
    await expect(store.get(ref.id)).rejects.toBeInstanceOf(SealedValueError);

    const second = await store.put(PNG, 'image/png');
    const target = await store.put(Buffer.concat([PNG, Buffer.from('x')]), 'image/png');
    await t.db.query(
      `UPDATE stored_documents SET ciphertext = (SELECT ciphertext FROM stored_documents WHERE id = $1),
              size_bytes = $3, sha256 = $4 WHERE id = $2`,
      [second.id, target.id, PNG.length, sha256(PNG)],
    );
    await expect(store.get(target.id)).rejects.toBeInstanceOf(SealedValueError);
  });

  it('answers null for an unknown id', async () => {
    expect(await store.get('doc_unknown')).toBeNull();
  });

  it('joins the ambient transaction: a rollback takes the document with it', async () => {
    const tx = t.get(Tx);
    let id = '';
    await expect(
      tx.run(async () => {
        id = (await store.put(PNG, 'image/png')).id;
        expect(await store.get(id)).not.toBeNull(); // visible inside the transaction
        throw new Error('business write failed');
      }),
    ).rejects.toThrow('business write failed');
    expect(await rowOf(id)).toBeUndefined();

    const committed = await tx.run(() => store.put(PNG, 'image/png'));
    expect(await rowOf(committed.id)).toBeDefined();
  });

  it('takes exactly 5,000,000 bytes and refuses one more, an empty document and other types', async () => {
    const max = Buffer.alloc(DOCUMENT_MAX_BYTES, 0x25);
    max.write('%PDF-1.7');
    const ref = await store.put(max, 'application/pdf');
    expect(ref.sizeBytes).toBe(5_000_000);
    expect((await store.get(ref.id))!.bytes.equals(max)).toBe(true);

    await expect(
      store.put(Buffer.alloc(DOCUMENT_MAX_BYTES + 1), 'application/pdf'),
    ).rejects.toMatchObject({
      status: 413,
      code: 'document_too_large',
    });
    await expect(store.put(Buffer.alloc(0), 'image/png')).rejects.toMatchObject({
      code: 'document_empty',
    });
    await expect(store.put(PNG, 'image/gif')).rejects.toMatchObject({
      status: 415,
      code: 'document_type_unsupported',
    });
  });

  it('the table refuses rows that break its rules, whoever writes them', async () => {
    const insert = (over: Record<string, unknown>) => {
      const row = {
        id: `doc_${randomBytes(6).toString('hex')}`,
        content_type: 'image/png',
        size_bytes: 4,
        sha256: '0'.repeat(64),
        key_version: 1,
        ciphertext: Buffer.alloc(32),
        ...over,
      };
      return t.db.query(
        `INSERT INTO stored_documents (id, content_type, size_bytes, sha256, key_version, ciphertext)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        Object.values(row),
      );
    };
    await insert({}); // valid
    for (const [over, constraint] of [
      [{ content_type: 'image/gif' }, 'stored_documents_content_type_chk'],
      [
        { size_bytes: 5_000_001, ciphertext: Buffer.alloc(5_000_029) },
        'stored_documents_size_bytes_chk',
      ],
      [{ sha256: 'ABC' }, 'stored_documents_sha256_chk'],
      [{ key_version: 0 }, 'stored_documents_key_version_chk'],
      [{ ciphertext: Buffer.alloc(4) }, 'stored_documents_ciphertext_chk'],
      [{ id: 'pi_1' }, 'stored_documents_id_chk'],
    ] as const) {
      await expect(insert(over)).rejects.toMatchObject({ code: '23514', constraint });
    }
  });

  it('stops a live boot without DOCUMENT_ENCRYPTION_KEY, saying what to set', () => {
    const live = new PostgresDocumentStore(t.get(Tx), {
      ...t.config,
      mode: 'live',
      documentEncryptionKey: null,
    });
    expect(() => live.onModuleInit()).toThrow(ConfigError);
    expect(() => live.onModuleInit()).toThrow(/DOCUMENT_ENCRYPTION_KEY is required in live mode/);
  });
});

describe('the document upload route gets its own body limit, refused early', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startApp({ runWorkers: false });
    port = Number(new URL(t.url).port);
  });
  afterAll(() => t.close());

  const DOCS = '/v1/pay/forex/orders/fxo_test/documents';

  /** Sends the head only, then waits: for the answer, and for the server to close. */
  function headOnly(path: string, contentLength: number) {
    return new Promise<{ status: number; body: unknown; closed: boolean; ms: number }>(
      (resolve, reject) => {
        const started = Date.now();
        const socket = connect(port, '127.0.0.1');
        let raw = '';
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new Error(`no answer within 5 s: ${raw}`));
        }, 5_000);
        socket.on('data', (d) => (raw += d.toString('latin1')));
        socket.on('error', reject);
        socket.on('close', () => {
          clearTimeout(timer);
          const [head, body] = raw.split('\r\n\r\n');
          resolve({
            status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
            body: body ? (JSON.parse(body) as unknown) : null,
            closed: /\r\nconnection: close\r\n/i.test(`${head}\r\n`),
            ms: Date.now() - started,
          });
        });
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${contentLength}\r\n\r\n`,
        );
      },
    );
  }

  it('refuses a Content-Length above the limit with 413 before a byte of the body is sent', async () => {
    for (const path of [DOCS, '/V1/PAY/FOREX/ORDERS/fxo_test/DOCUMENTS']) {
      for (const length of [DOCUMENT_UPLOAD_BODY_LIMIT_BYTES + 1, 10 * 1024 ** 3]) {
        const res = await headOnly(path, length);
        expect(res).toMatchObject({
          status: 413,
          closed: true,
          body: {
            error: {
              code: 'request_too_large',
              message: `Request body exceeds ${DOCUMENT_UPLOAD_BODY_LIMIT_BYTES} bytes`,
            },
          },
        });
        // The server answered and hung up while we were still "about to send" the body.
        expect(res.ms).toBeLessThan(3_000);
      }
    }
  });

  it('takes a body of exactly the limit on that route (the route answers, not the parser)', async () => {
    const filler = DOCUMENT_UPLOAD_BODY_LIMIT_BYTES - JSON.stringify({ content_base64: '' }).length;
    const body = JSON.stringify({ content_base64: 'A'.repeat(filler) });
    expect(Buffer.byteLength(body)).toBe(DOCUMENT_UPLOAD_BODY_LIMIT_BYTES);
    const res = await request(t.url).post(DOCS).set('Content-Type', 'application/json').send(body);
    // 404 until the forex route exists, then 401 (no credential): either way past the size check.
    expect(res.status).not.toBe(413);
    expect(res.status).toBeLessThan(500);
  });

  it('takes more than BODY_LIMIT there, while every other route keeps BODY_LIMIT', async () => {
    const big = JSON.stringify({ content_base64: 'A'.repeat(300_000) });
    const docs = await request(t.url).post(DOCS).set('Content-Type', 'application/json').send(big);
    expect(docs.status).not.toBe(413);
    const other = await request(t.url)
      .post('/v1/pay/quotes')
      .set('Content-Type', 'application/json')
      .send(big);
    expect(other.status).toBe(413);
    expect(other.body.error.code).toBe('request_too_large');
    const sibling = await request(t.url)
      .post('/v1/pay/forex/orders/fxo_test/submit')
      .set('Content-Type', 'application/json')
      .send(big);
    expect(sibling.status).toBe(413);
  });

  it('cuts a chunked body (no Content-Length) at the same limit', async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: DOCS,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        },
        (r) => {
          let body = '';
          r.on('data', (d: Buffer) => (body += d.toString()));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      expect(req.getHeader('content-length')).toBeUndefined();
      req.write('{"content_base64":"');
      const chunk = 'A'.repeat(64 * 1024);
      for (let sent = 0; sent <= DOCUMENT_UPLOAD_BODY_LIMIT_BYTES; sent += chunk.length) {
        req.write(chunk);
      }
      req.end('"}');
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('request_too_large');
  });

  it('keeps the hostile-input edge checks on that route', async () => {
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    const res = await request(t.url).post(DOCS).set('Content-Type', 'application/json').send(deep);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/deeper than 32/),
    });
    const nul = await request(t.url)
      .post(DOCS)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ content_base64: 'AAAA', filename: 'a\u0000b' }));
    expect(nul.status).toBe(400);
    expect(nul.body.error.param).toBe('$.filename');
    const text = await request(t.url).post(DOCS).set('Content-Type', 'text/plain').send('x');
    expect(text.status).toBe(415);
  });
});
