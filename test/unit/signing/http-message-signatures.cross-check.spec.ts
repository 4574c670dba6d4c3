import { generateKeyPairSync, type KeyObject } from 'node:crypto';

// The independent implementation (dev dependency, docs/dependencies.md): what we sign it must
// verify, and what it signs we must verify (docs/http-message-signatures.md, "Tests").
import {
  createSigner,
  createVerifier,
  httpbis,
  type Request as TheirRequest,
  type Response as TheirResponse,
} from 'http-message-signatures';

import {
  contentDigest,
  type HttpRequestMessage,
  type SignatureAlgorithm,
  signMessage,
  verifyMessageSignature,
} from '../../../src/common/signing/http-message-signatures';

const ALGS: SignatureAlgorithm[] = ['ed25519', 'ecdsa-p256-sha256'];

function keyPair(alg: SignatureAlgorithm): { privateKey: KeyObject; publicKey: KeyObject } {
  return alg === 'ed25519'
    ? generateKeyPairSync('ed25519')
    : generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

const COMPONENTS = [
  '@method',
  '@target-uri',
  '@authority',
  '@scheme',
  '@path',
  '@query',
  'content-type',
  'content-digest',
  'x-multi',
];

function request(): HttpRequestMessage & {
  headers: Record<string, string | string[]>;
  body: string;
} {
  const body = JSON.stringify({
    type: 'checkout.completed',
    amount: { value: 149900, currency: 'INR' },
  });
  return {
    method: 'POST',
    url: 'https://payments.example.in/ucp/v1/checkouts/ch_1/complete?lang=hi&x=%2F',
    headers: {
      'Content-Type': 'application/json',
      'X-Multi': ['a', ' b '],
    },
    body,
  };
}

function theirVerify(alg: SignatureAlgorithm, keyid: string, publicKey: KeyObject) {
  return async (message: TheirRequest | TheirResponse): Promise<boolean | null> =>
    httpbis.verifyMessage(
      {
        keyLookup: (params) =>
          Promise.resolve(
            params.keyid === keyid
              ? { id: keyid, algs: [alg], verify: createVerifier(publicKey, alg) }
              : null,
          ),
      },
      message as TheirRequest,
    );
}

describe.each(ALGS)('cross-check with http-message-signatures (%s)', (alg) => {
  const { privateKey, publicKey } = keyPair(alg);
  const keyid = `cross-${alg}`;
  const keyLookup = (id: string) => (id === keyid ? { key: publicKey, alg } : null);

  it('it verifies what we sign (request)', async () => {
    const message = request();
    const headers = signMessage(message, {
      keyid,
      key: privateKey,
      alg,
      components: COMPONENTS,
      nonce: 'n-cross',
      tag: 'ucp',
      expires: new Date(Date.now() + 60_000),
    });
    const theirs: TheirRequest = {
      method: message.method,
      url: message.url,
      headers: { ...message.headers, ...headers },
    };
    await expect(theirVerify(alg, keyid, publicKey)(theirs)).resolves.toBe(true);
    // And it is not simply saying yes.
    await expect(theirVerify(alg, keyid, publicKey)({ ...theirs, method: 'PUT' })).resolves.toBe(
      false,
    );
  });

  it('it verifies what we sign (response)', async () => {
    const response = {
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      body: '{"ok":true}',
    };
    const headers = signMessage(response, { keyid, key: privateKey, alg });
    const theirs: TheirResponse = { status: 200, headers: { ...response.headers, ...headers } };
    await expect(theirVerify(alg, keyid, publicKey)(theirs)).resolves.toBe(true);
    await expect(theirVerify(alg, keyid, publicKey)({ ...theirs, status: 500 })).resolves.toBe(
      false,
    );
  });

  it('we verify what it signs', async () => {
    const message = request();
    const theirs: TheirRequest = {
      method: message.method,
      url: message.url,
      headers: { ...message.headers, 'Content-Digest': contentDigest(message.body) },
    };
    const signed = await httpbis.signMessage(
      {
        key: createSigner(privateKey, alg, keyid),
        name: 'theirs',
        fields: COMPONENTS,
        params: ['created', 'expires', 'nonce', 'keyid', 'alg', 'tag'],
        paramValues: { nonce: 'n-theirs', tag: 'ucp' },
      },
      theirs,
    );
    const result = await verifyMessageSignature(
      { ...message, headers: signed.headers },
      { keyLookup, requiredComponents: ['@method', '@target-uri'], tag: 'ucp' },
    );
    expect(result).toMatchObject({
      ok: true,
      label: 'theirs',
      keyid,
      alg,
      components: COMPONENTS,
      params: { nonce: 'n-theirs', keyid, alg, tag: 'ucp' },
    });
    const tampered = await verifyMessageSignature(
      { ...message, headers: { ...signed.headers, 'X-Multi': 'a, c' } },
      { keyLookup },
    );
    expect(tampered).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('we verify a response it signs over @status', async () => {
    const response: TheirResponse = {
      status: 201,
      headers: { 'Content-Type': 'application/json', 'Content-Digest': contentDigest('{}') },
    };
    const signed = await httpbis.signMessage(
      {
        key: createSigner(privateKey, alg, keyid),
        fields: ['@status', 'content-type', 'content-digest'],
      },
      response,
    );
    const result = await verifyMessageSignature(
      { status: 201, headers: signed.headers, body: '{}' },
      { keyLookup },
    );
    expect(result).toMatchObject({ ok: true, label: 'sig', keyid });
  });
});
