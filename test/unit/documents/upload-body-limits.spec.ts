import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import type { Request } from 'express';

import {
  DOCUMENT_ENVELOPE_BYTES,
  DOCUMENT_UPLOAD_BODY_LIMIT_BYTES,
  routeBodyLimitOf,
} from '../../../src/common/http/body-limits';
import { findHostileValue, MAX_BODY_DEPTH } from '../../../src/common/http/hostile-input';
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

/**
 * Timed in a plain Node process: Jest runs tests inside a vm context, where every global lookup
 * (Number, Math) is intercepted and a loop over millions of values is tens of times slower than
 * in the service, so times measured here would say nothing about production.
 */
function timeInNode(script: string): Record<string, number> {
  const out = execFileSync(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-e', script],
    { cwd: join(__dirname, '..', '..', '..'), encoding: 'utf8', timeout: 60_000 },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
}

describe('hostile-input checks on a document-sized body stay linear and fast', () => {
  it('check a 6.7 MB upload, and a body of 3 million members, in milliseconds', () => {
    const times = timeInNode(`
      const { findHostileValue, tooDeepPathInJsonText } = require('./src/common/http/hostile-input');
      const time = (fn) => { const t = performance.now(); const r = fn(); if (r !== null) throw new Error('refused'); return performance.now() - t; };
      const upload = JSON.stringify({ kind: 'passport', content_type: 'application/pdf', content_base64: 'QUJD'.repeat(1666667) });
      const members = '[' + '1,'.repeat(3000000) + '1]';
      const objects = '[' + '{"a":1,"b":"x","c":[1,2]},'.repeat(200000) + '{}]';
      console.log(JSON.stringify({
        uploadText: time(() => tooDeepPathInJsonText(Buffer.from(upload))),
        uploadWalk: time(() => findHostileValue(JSON.parse(upload))),
        membersText: time(() => tooDeepPathInJsonText(Buffer.from(members))),
        membersWalk: time(() => findHostileValue(JSON.parse(members))),
        objectsWalk: time(() => findHostileValue(JSON.parse(objects))),
      }));
    `);
    // Typically 20-60 ms each on a busy 2-core machine. The walk used to build a JSONPath string
    // and a frame per member: 1.3-1.7 s for the 3 million members on the same machine.
    for (const ms of Object.values(times)) {
      expect(ms).toBeLessThan(600);
    }
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
