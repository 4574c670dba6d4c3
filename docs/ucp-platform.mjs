// A local UCP platform for the sandbox (docs/ucp.md "Sandbox", docs/try-it.md): nothing but Node (>= 20).
//   node docs/ucp-platform.mjs <BASE> <dir>
// Serves a platform profile on http://127.0.0.1:<free port>/profile.json (checkout and order at 2026-04-08,
// order webhooks to http://127.0.0.1:<port>/webhooks/orders) and writes its URL to <dir>/profile-url. Each order
// webhook it receives is checked as a platform must: Content-Digest (sha-256) against the raw body, then the
// RFC 9421 signature (label sig1, ES256, raw r||s) with the key its keyid names in <BASE>/.well-known/ucp
// signing_keys. It prints one line per webhook ("signature verified: <order id> …" or "INVALID: …"), keeps the
// body in <dir>/webhook-<n>.json, and stops by itself after 15 minutes.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const [base, dir] = process.argv.slice(2);
if (!base || !dir) {
  console.error('usage: node docs/ucp-platform.mjs <BASE> <dir>');
  process.exit(2);
}
const VERSION = '2026-04-08';
let received = 0;

function profile(origin) {
  return {
    ucp: {
      version: VERSION,
      services: {
        'dev.ucp.shopping': [
          {
            version: VERSION,
            spec: `https://ucp.dev/${VERSION}/specification/overview`,
            transport: 'rest',
            schema: `https://ucp.dev/${VERSION}/services/shopping/rest.openapi.json`,
          },
        ],
      },
      capabilities: {
        'dev.ucp.shopping.checkout': [{ version: VERSION }],
        'dev.ucp.shopping.order': [
          { version: VERSION, config: { webhook_url: `${origin}/webhooks/orders` } },
        ],
      },
      payment_handlers: {
        'com.svc.upi_mandate': [
          {
            id: 'local_upi_mandate',
            version: VERSION,
            spec: `${base}/ucp/handlers/upi_mandate`,
            schema: `${base}/ucp/handlers/upi_mandate/schema.json`,
          },
        ],
      },
    },
  };
}

/** One header's value as RFC 9421 covers it (repeated fields joined with ", "). */
function field(headers, name) {
  const v = headers[name];
  if (v === undefined) throw new Error(`the signature covers ${name}, which is absent`);
  return (Array.isArray(v) ? v.join(', ') : v).trim();
}

/** The RFC 9421 signature base of this request for the label's covered components and parameters. */
function signatureBase(req, params) {
  const inner = params.match(/^\(([^)]*)\)/);
  if (!inner) throw new Error('Signature-Input is not an inner list');
  const url = new URL(req.url, `http://${req.headers.host}`);
  const lines = inner[1]
    .split(' ')
    .filter(Boolean)
    .map((quoted) => {
      const name = JSON.parse(quoted);
      const value =
        name === '@method'
          ? req.method
          : name === '@authority'
            ? url.host.toLowerCase()
            : name === '@path'
              ? url.pathname
              : name === '@query'
                ? url.search || '?'
                : name === '@target-uri'
                  ? url.href
                  : field(req.headers, name);
      return `"${name}": ${value}`;
    });
  return [...lines, `"@signature-params": ${params}`].join('\n');
}

async function check(req, body) {
  const digest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
  if (req.headers['content-digest'] !== digest)
    throw new Error('Content-Digest does not match the body');
  const input = /^sig1=(.*)$/.exec(field(req.headers, 'signature-input'));
  const signature = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(field(req.headers, 'signature'));
  if (!input || !signature) throw new Error('no sig1 signature');
  const keyid = /;keyid="([^"]+)"/.exec(input[1])?.[1];
  const created = Number(/;created=(\d+)/.exec(input[1])?.[1]);
  if (!keyid || !(Math.abs(Date.now() / 1000 - created) < 300))
    throw new Error('no keyid, or created is not recent');
  const business = await (await fetch(`${base}/.well-known/ucp`)).json();
  const jwk = (business.signing_keys ?? []).find((k) => k.kid === keyid);
  if (!jwk || jwk.kty !== 'EC' || jwk.crv !== 'P-256')
    throw new Error(`no P-256 key ${keyid} in signing_keys`);
  const ok = verify(
    'sha256',
    Buffer.from(signatureBase(req, input[1])),
    { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature[1], 'base64'),
  );
  if (!ok) throw new Error('the signature does not verify');
}

const server = createServer((req, res) => {
  const origin = `http://127.0.0.1:${server.address().port}`;
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    if (req.method === 'GET' && req.url === '/profile.json') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(profile(origin)));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/webhooks/orders') {
      res.writeHead(404).end();
      return;
    }
    const body = Buffer.concat(chunks);
    const n = ++received;
    writeFileSync(join(dir, `webhook-${n}.json`), body);
    try {
      await check(req, body);
      const order = JSON.parse(body.toString('utf8'));
      console.log(`signature verified: ${order.id} (webhook ${n}, ${req.headers['webhook-id']})`);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ucp: { version: VERSION } }));
    } catch (err) {
      console.log(`INVALID: webhook ${n}: ${err.message}`);
      res.writeHead(400).end();
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  writeFileSync(
    join(dir, 'profile-url'),
    `http://127.0.0.1:${server.address().port}/profile.json\n`,
  );
});
setTimeout(() => process.exit(0), 15 * 60_000).unref();
