import { generateKeyPairSync, KeyObject, sign as cryptoSign } from 'node:crypto';

import { AccountsService } from '../../src/accounts/accounts.service';
import { randomToken } from '../../src/common/ids';
import { signedBytes } from '../../src/common/signing/signed-bytes';
import { ProtocolKeysService } from '../../src/protocol-keys/protocol-keys.service';
import type { TestApp } from './app';
import { withoutIdentityNumber } from './no-identity-number';

export interface SeededWorkspace {
  workspaceId: string;
  personId: string;
  email: string;
  password: string;
  apiKey: string;
  seller: { id: string; credential: string };
  buyer: { id: string; credential: string };
  merchantKey: string;
  merchantKeyId: string;
  buyerKey: string;
  buyerKeyId: string;
}

/** A fresh workspace with a person, an API key, a seller and a buyer agent and their protocol keys. */
export async function seedWorkspace(
  t: TestApp,
  opts: { merchantPublicKey?: unknown; buyerPublicKey?: unknown } = {},
): Promise<SeededWorkspace> {
  const accounts = t.get(AccountsService);
  const keys = t.get(ProtocolKeysService);
  const email = withoutIdentityNumber(() => `person-${randomToken(10).toLowerCase()}@example.test`);
  const password = `pw-${randomToken(16)}`;
  const { workspace, person, apiKey } = await accounts.signUp({
    workspaceName: 'Test workspace',
    email,
    name: 'Test Person',
    password,
  });
  const actor = { type: 'person' as const, id: person.id };
  const seller = await accounts.createAgent(
    workspace.id,
    { name: 'Chai Co', role: 'seller' },
    actor,
  );
  const buyer = await accounts.createAgent(
    workspace.id,
    { name: 'Buyer assistant', role: 'buyer' },
    actor,
  );
  const mk = await keys.create(
    workspace.id,
    { role: 'merchant', agentId: seller.id, publicKey: opts.merchantPublicKey },
    actor,
  );
  const bk = await keys.create(
    workspace.id,
    { role: 'buyer', agentId: buyer.id, publicKey: opts.buyerPublicKey },
    actor,
  );
  return {
    workspaceId: workspace.id,
    personId: person.id,
    email,
    password,
    apiKey: apiKey.secret!,
    seller: { id: seller.id, credential: seller.credential! },
    buyer: { id: buyer.id, credential: buyer.credential! },
    merchantKey: mk.key!,
    merchantKeyId: mk.id,
    buyerKey: bk.key!,
    buyerKeyId: bk.id,
  };
}

export type KeyAlg = 'ed25519' | 'p256';

export function keyPair(alg: KeyAlg): { privateKey: KeyObject; publicPem: string } {
  const pair =
    alg === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey: pair.privateKey,
    publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** Signature and Timestamp headers per the signing profile (docs/security.md "Signing requests"). */
export function signHeaders(
  privateKey: KeyObject,
  alg: KeyAlg,
  method: string,
  pathWithQuery: string,
  body: unknown,
  timestamp = new Date().toISOString(),
): { Signature: string; Timestamp: string } {
  const data = signedBytes(timestamp, method, pathWithQuery, body);
  const sig =
    alg === 'ed25519'
      ? cryptoSign(null, data, privateKey)
      : cryptoSign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return { Signature: sig.toString('base64url'), Timestamp: timestamp };
}

export const ACP_HEADERS = { 'API-Version': '2026-04-17' };

export function acpHeaders(key: string, idempotencyKey?: string): Record<string, string> {
  return {
    Authorization: `Bearer ${key}`,
    'API-Version': '2026-04-17',
    ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
  };
}
