import type { Request } from 'express';

import {
  DOCUMENT_ENVELOPE_BYTES,
  DOCUMENT_UPLOAD_BODY_LIMIT_BYTES,
  routeBodyLimitOf,
} from '../../../src/common/http/body-limits';
import {
  findHostileValue,
  MAX_BODY_DEPTH,
  tooDeepPathInJsonText,
} from '../../../src/common/http/hostile-input';
import { DOCUMENT_MAX_BYTES } from '../../../src/documents/document-content';

const req = (method: string, url: string) => ({ method, originalUrl: url, url }) as Request;

describe('the document upload body limit', () => {
  it('is the base64 of 5,000,000 bytes plus a 16 KiB JSON envelope: 6,683,052 bytes', () => {
    expect(Buffer.alloc(DOCUMENT_MAX_BYTES).toString('base64')).toHaveLength(6_666_668);
    expect(DOCUMENT_ENVELOPE_BYTES).toBe(16_384);
    expect(DOCUMENT_UPLOAD_BODY_LIMIT_BYTES).toBe(6_666_668 + 16_384);
  });

  it('holds the largest document with a generous envelope (escaped file name and all)', () => {
    const body = JSON.stringify({
      kind: 'admission_letter',
      content_type: 'application/pdf',
      filename: '\u0001'.repeat(200), // every character escaped as \u0001: 1,200 bytes
      content_base64: 'A'.repeat(6_666_668),
    });
    expect(Buffer.byteLength(body)).toBeLessThan(DOCUMENT_UPLOAD_BODY_LIMIT_BYTES);
  });

  it('applies to POST /v1/pay/forex/orders/:id/documents only (any case, like the router)', () => {
    for (const url of [
      '/v1/pay/forex/orders/fxo_1/documents',
      '/v1/pay/forex/orders/fxo_1/documents/',
      '/v1/pay/forex/orders/fxo_1/documents?x=1',
      '/V1/Pay/Forex/Orders/fxo_1/Documents',
    ]) {
      expect(routeBodyLimitOf(req('POST', url))?.limitBytes).toBe(DOCUMENT_UPLOAD_BODY_LIMIT_BYTES);
    }
    for (const [method, url] of [
      ['PUT', '/v1/pay/forex/orders/fxo_1/documents'],
      ['POST', '/v1/pay/forex/orders/fxo_1/documents/doc_1'],
      ['POST', '/v1/pay/forex/orders/documents'],
      ['POST', '/v1/pay/forex/orders/a/b/documents'],
      ['POST', '/v1/pay/forex/orders/fxo_1/submit'],
      ['POST', '/x/v1/pay/forex/orders/fxo_1/documents'],
      ['POST', '/v1/pay/quotes'],
    ]) {
      expect(routeBodyLimitOf(req(method, url))).toBeNull();
    }
  });
});

describe('hostile-input checks on a document-sized body', () => {
  it('accept a 6.7 MB upload and a body of 3 million members', () => {
    const upload = JSON.stringify({
      kind: 'passport',
      content_type: 'application/pdf',
      content_base64: 'QUJD'.repeat(1666667),
    });
    const members = '[' + '1,'.repeat(3000000) + '1]';
    expect(tooDeepPathInJsonText(Buffer.from(upload))).toBeNull();
    expect(findHostileValue(JSON.parse(upload))).toBeNull();
    expect(tooDeepPathInJsonText(Buffer.from(members))).toBeNull();
    expect(findHostileValue(JSON.parse(members))).toBeNull();
  });

  it('still refuses depth, numbers and strings with the same paths', () => {
    let nested: unknown = 1;
    for (let i = 0; i < MAX_BODY_DEPTH; i++) {
      nested = { 'a b': [nested] };
    }
    expect(findHostileValue(nested)?.message).toMatch(/nests deeper than 32 levels/);
    expect(findHostileValue({ x: [{ y: 'a\u0000' }] })?.param).toBe('$.x[0].y');
    expect(findHostileValue({ x: [1, 2 ** 60] })?.param).toBe('$.x[1]');
    expect(findHostileValue({ ok: 1, constructor: 1 })?.message).toBe(
      'Unknown field $.constructor',
    );
    expect(findHostileValue({ 'k\u0000': 1 })?.message).toMatch(/^The key of \$\['k\\u0000'\]/);
    expect(findHostileValue('\ud800', '$.query')?.param).toBe('$.query');
    // Keys of an object are checked before its values, and values in document order.
    expect(findHostileValue({ a: { b: 'x\u0000' }, toString: 1 })?.param).toBe('$.toString');
    expect(findHostileValue({ a: { b: 'x\u0000' }, c: 'y\u0000' })?.param).toBe('$.a.b');
    expect(findHostileValue(JSON.parse('[{"a":1},{"a":1,"b":[0,1e400]}]'))?.param).toBe(
      '$[1].b[1]',
    );
  });
});
