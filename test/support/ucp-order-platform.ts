import { createHash } from 'node:crypto';
import { createPublicKey } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http, { IncomingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';

import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createVerifier, httpbis, type Request as TheirRequest } from 'http-message-signatures';

import { UCP_SCHEMA_DIR, ucpSchemasOrSkip } from './ucp-schema';

/**
 * A UCP platform's side of orders, for tests (docs/ucp.md "Orders"): a local webhook receiver,
 * an RFC 9421 check of what it received done with the independent `http-message-signatures`
 * package and node:crypto (never our own signing code), and schemas/shopping/order.json.
 */

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface OrderReceiver {
  url: string;
  got: Received[];
  close(): Promise<void>;
}

export async function startOrderReceiver(
  answer: (r: Received) => number = () => 200,
): Promise<OrderReceiver> {
  const receiver: OrderReceiver = { url: '', got: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      receiver.got.push(r);
      res
        .writeHead(answer(r), { 'content-type': 'application/json' })
        .end('{"ucp":{"version":"2026-04-08"}}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/ucp/orders`;
  receiver.close = () => new Promise<void>((ok) => server.close(() => ok()));
  return receiver;
}

/**
 * The platform's verification: Content-Digest against the raw body (node:crypto), then the
 * signature with the key of `signing_keys` its keyid names (http-message-signatures).
 */
export async function verifyUcpWebhook(
  r: Received,
  url: string,
  signingKeys: Record<string, string>[],
): Promise<boolean> {
  const digest = `sha-256=:${createHash('sha256').update(r.body, 'utf8').digest('base64')}:`;
  if (r.headers['content-digest'] !== digest) {
    return false;
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) {
    if (typeof v === 'string') {
      headers[k] = v;
    }
  }
  const message: TheirRequest = { method: r.method, url, headers };
  return httpbis.verifyMessage(
    {
      keyLookup: (params) => {
        const jwk = signingKeys.find((k) => k.kid === params.keyid);
        if (!jwk || jwk.kty !== 'EC' || jwk.crv !== 'P-256') {
          return Promise.resolve(null);
        }
        const key = createPublicKey({ key: jwk, format: 'jwk' });
        return Promise.resolve({
          id: jwk.kid,
          algs: ['ecdsa-p256-sha256'],
          verify: createVerifier(key, 'ecdsa-p256-sha256'),
        });
      },
    },
    message,
  ) as Promise<boolean>;
}

let orderValidator: ((doc: unknown) => boolean) & { errors?: unknown } = Object.assign(
  () => true,
  {},
);
let loaded = false;

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? jsonFiles(full) : name.endsWith('.json') ? [full] : [];
  });
}

/** Valid against schemas/shopping/order.json; skipped (one line) without UCP_SCHEMA_DIR. */
export function expectValidUcpOrder(doc: unknown): void {
  if (!ucpSchemasOrSkip()) {
    return;
  }
  if (!loaded) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const file of jsonFiles(join(UCP_SCHEMA_DIR, 'schemas'))) {
      ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')) as object);
    }
    const v = ajv.getSchema('https://ucp.dev/schemas/shopping/order.json');
    if (!v) {
      throw new Error(`No order.json in ${UCP_SCHEMA_DIR}`);
    }
    orderValidator = v as typeof orderValidator;
    loaded = true;
  }
  if (!orderValidator(doc)) {
    throw new Error(`not a valid UCP order: ${JSON.stringify(orderValidator.errors, null, 2)}`);
  }
}
