import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { SignatureAlgorithm } from '../../src/common/signing/http-message-signatures';

/**
 * A UCP platform's profile host for tests: a local http server (MODE=test admits http and
 * loopback profile URLs, see src/ucp/ucp-negotiation.ts) serving the documents it is given by
 * path. Unknown paths are 404. `hits` counts requests per path (to see the cache work).
 */
export interface PlatformHost {
  url: (path: string) => string;
  /** The UCP-Agent header naming the profile at `path`. */
  agent: (path: string) => string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

export const UCP_TEST_VERSION = '2026-04-08';

/** A valid platform profile (discovery/profile_schema.json platform_profile) with checkout. */
export function platformProfile(
  options: { capabilities?: Record<string, unknown>; version?: string } = {},
): Record<string, unknown> {
  const version = options.version ?? UCP_TEST_VERSION;
  return {
    ucp: {
      version,
      services: {
        'dev.ucp.shopping': [
          {
            version,
            spec: `https://ucp.dev/${version}/specification/overview`,
            transport: 'rest',
            schema: `https://ucp.dev/${version}/services/shopping/rest.openapi.json`,
          },
        ],
      },
      capabilities: options.capabilities ?? {
        'dev.ucp.shopping.checkout': [
          {
            version,
            spec: `https://ucp.dev/${version}/specification/checkout`,
            schema: `https://ucp.dev/${version}/schemas/shopping/checkout.json`,
          },
        ],
      },
      payment_handlers: {
        'com.svc.upi_mandate': [
          {
            id: 'platform_upi_mandate',
            version,
            spec: 'https://platform.example/ucp/handlers/upi_mandate',
            schema: 'https://platform.example/ucp/handlers/upi_mandate/schema.json',
          },
        ],
      },
    },
  };
}

export async function startPlatformHost(
  documents: Record<string, string | Record<string, unknown>>,
): Promise<PlatformHost> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const doc = documents[path];
    if (doc === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res
      .writeHead(200, {
        'content-type': 'application/json',
        'cache-control': 'public, max-age=300',
      })
      .end(typeof doc === 'string' ? doc : JSON.stringify(doc));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  return {
    url,
    agent: (path: string) => `profile="${url(path)}"`,
    hits,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** A platform's signing key for RFC 9421 requests: its private half and the JWK its profile publishes. */
export interface PlatformSigner {
  keyid: string;
  alg: SignatureAlgorithm;
  privateKey: KeyObject;
  publicJwk: Record<string, unknown>;
}

/** A fresh Ed25519 or P-256 key pair under `keyid`. */
export function platformSigner(keyid: string, alg: SignatureAlgorithm): PlatformSigner {
  const { privateKey, publicKey } =
    alg === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    keyid,
    alg,
    privateKey,
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid: keyid, use: 'sig' },
  };
}
