import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

import {
  checkContentDigest,
  contentDigest,
  createSignatureBase,
  DEFAULT_MAX_AGE_SECONDS,
  type HttpRequestMessage,
  InMemoryNonceStore,
  MessageSigningError,
  type SignatureAlgorithm,
  signMessage,
  type VerificationKey,
  verifyMessageSignature,
  type VerifyOptions,
  type VerifyResult,
} from '../../../src/common/signing/http-message-signatures';

// Test material from RFC 9421 Appendix B (test keys B.1.3 and B.1.4, the B.2 messages, and the
// B.2.4 and B.2.6 vectors): test vectors, not code (docs/http-message-signatures.md, "Tests").

const RFC_CREATED = 1618884473;

const ECC_P256_PRIVATE_PEM = [
  '-----BEGIN EC PRIVATE KEY-----',
  'MHcCAQEEIFKbhfNZfpDsW43+0+JjUr9K+bTeuxopu653+hBaXGA7oAoGCCqGSM49',
  'AwEHoUQDQgAEqIVYZVLCrPZHGHjP17CTW0/+D9Lfw0EkjqF7xB4FivAxzic30tMM',
  '4GF+hR6Dxh71Z50VGGdldkkDXZCnTNnoXQ==',
  '-----END EC PRIVATE KEY-----',
].join('\n');

const ECC_P256_PUBLIC_PEM = [
  '-----BEGIN PUBLIC KEY-----',
  'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqIVYZVLCrPZHGHjP17CTW0/+D9Lf',
  'w0EkjqF7xB4FivAxzic30tMM4GF+hR6Dxh71Z50VGGdldkkDXZCnTNnoXQ==',
  '-----END PUBLIC KEY-----',
].join('\n');

const ED25519_PRIVATE_PEM = [
  '-----BEGIN PRIVATE KEY-----',
  'MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF',
  '-----END PRIVATE KEY-----',
].join('\n');

const ED25519_PUBLIC_PEM = [
  '-----BEGIN PUBLIC KEY-----',
  'MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=',
  '-----END PUBLIC KEY-----',
].join('\n');

/** The B.2 test request. */
function rfcRequest(): {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
} {
  return {
    method: 'POST',
    url: 'https://example.com/foo?param=Value&Pet=dog',
    headers: {
      Host: 'example.com',
      Date: 'Tue, 20 Apr 2021 02:07:55 GMT',
      'Content-Type': 'application/json',
      'Content-Digest':
        'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
      'Content-Length': '18',
    },
    body: '{"hello": "world"}',
  };
}

/** The B.2 test response. */
function rfcResponse(): { status: number; headers: Record<string, string>; body: string } {
  return {
    status: 200,
    headers: {
      Date: 'Tue, 20 Apr 2021 02:07:56 GMT',
      'Content-Type': 'application/json',
      'Content-Digest':
        'sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:',
      'Content-Length': '23',
    },
    body: '{"message": "good dog"}',
  };
}

const B26_BASE = [
  '"date": Tue, 20 Apr 2021 02:07:55 GMT',
  '"@method": POST',
  '"@path": /foo',
  '"@authority": example.com',
  '"content-type": application/json',
  '"content-length": 18',
  '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
].join('\n');
const B26_SIGNATURE_INPUT =
  'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"';
const B26_SIGNATURE =
  'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:';

const B24_BASE = [
  '"@status": 200',
  '"content-type": application/json',
  '"content-digest": sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:',
  '"content-length": 23',
  '"@signature-params": ("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"',
].join('\n');
const B24_SIGNATURE_INPUT =
  'sig-b24=("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"';
const B24_SIGNATURE =
  'sig-b24=:wNmSUAhwb5LxtOtOpNa6W5xj067m5hFrj0XQ4fvpaCLx0NKocgPquLgyahnzDnDAUy5eCdlYUEkLIj+32oiasw==:';

const NOW = new Date('2026-11-25T12:00:00Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);

function keyPair(alg: SignatureAlgorithm): { privateKey: KeyObject; publicKey: KeyObject } {
  return alg === 'ed25519'
    ? generateKeyPairSync('ed25519')
    : generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

const keys = {
  ed25519: keyPair('ed25519'),
  'ecdsa-p256-sha256': keyPair('ecdsa-p256-sha256'),
};

function lookup(table: Record<string, VerificationKey>): VerifyOptions['keyLookup'] {
  return (keyid) => table[keyid] ?? null;
}

const registered: Record<string, VerificationKey> = {
  'platform-ed': { key: keys.ed25519.publicKey, alg: 'ed25519' },
  'platform-ec': { key: keys['ecdsa-p256-sha256'].publicKey, alg: 'ecdsa-p256-sha256' },
};

function webhookRequest(body = '{"type":"order.updated","id":"ord_1"}'): HttpRequestMessage {
  return {
    method: 'POST',
    url: 'https://merchant.example.in/ucp/webhooks?attempt=1',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'k-123' },
    body,
  };
}

function signed(
  message: HttpRequestMessage,
  overrides: Partial<Parameters<typeof signMessage>[1]> = {},
): HttpRequestMessage {
  const headers = signMessage(message, {
    keyid: 'platform-ec',
    key: keys['ecdsa-p256-sha256'].privateKey,
    alg: 'ecdsa-p256-sha256',
    components: ['@method', '@target-uri', 'content-type', 'content-digest', 'idempotency-key'],
    created: NOW,
    ...overrides,
  });
  return { ...message, headers: { ...message.headers, ...headers } };
}

function verify(message: HttpRequestMessage, options: Partial<VerifyOptions> = {}) {
  return verifyMessageSignature(message, { keyLookup: lookup(registered), now: NOW, ...options });
}

function reasonOf(result: VerifyResult): string {
  return result.ok ? 'ok' : result.reason;
}

describe('RFC 9421 Appendix B vectors', () => {
  it('B.2.6: builds the published signature base', () => {
    const base = createSignatureBase(
      rfcRequest(),
      ['date', '@method', '@path', '@authority', 'content-type', 'content-length'],
      { created: RFC_CREATED, keyid: 'test-key-ed25519' },
    );
    expect(base).toBe(B26_BASE);
  });

  it('B.2.6: reproduces the published ed25519 signature byte for byte', () => {
    const headers = signMessage(rfcRequest(), {
      keyid: 'test-key-ed25519',
      key: ED25519_PRIVATE_PEM,
      alg: 'ed25519',
      algParameter: false,
      label: 'sig-b26',
      components: ['date', '@method', '@path', '@authority', 'content-type', 'content-length'],
      created: new Date(RFC_CREATED * 1000),
    });
    expect(headers).toEqual({ 'Signature-Input': B26_SIGNATURE_INPUT, Signature: B26_SIGNATURE });
  });

  it('B.2.6: verifies the published signature with the published public key', async () => {
    const request = rfcRequest();
    request.headers['Signature-Input'] = B26_SIGNATURE_INPUT;
    request.headers.Signature = B26_SIGNATURE;
    const options: VerifyOptions = {
      keyLookup: (keyid) =>
        keyid === 'test-key-ed25519' ? { key: ED25519_PUBLIC_PEM, alg: 'ed25519' } : null,
      now: new Date(RFC_CREATED * 1000),
      requireDigestForBody: false,
    };
    const result = await verifyMessageSignature(request, options);
    expect(result).toEqual({
      ok: true,
      label: 'sig-b26',
      keyid: 'test-key-ed25519',
      alg: 'ed25519',
      components: ['date', '@method', '@path', '@authority', 'content-type', 'content-length'],
      params: { created: RFC_CREATED, keyid: 'test-key-ed25519' },
    });
    // Our default policy wants the body covered by content-digest; B.2.6 does not cover it.
    expect(
      reasonOf(await verifyMessageSignature(request, { ...options, requireDigestForBody: true })),
    ).toBe('missing_component');
    request.headers.Date = 'Tue, 20 Apr 2021 02:07:56 GMT';
    expect(reasonOf(await verifyMessageSignature(request, options))).toBe('bad_signature');
  });

  it('B.2.4: builds the published response base and verifies the published ecdsa signature', async () => {
    const response = rfcResponse();
    expect(
      createSignatureBase(
        response,
        ['@status', 'content-type', 'content-digest', 'content-length'],
        {
          created: RFC_CREATED,
          keyid: 'test-key-ecc-p256',
        },
      ),
    ).toBe(B24_BASE);
    // The sha-512 Content-Digest of B.2.4 matches its body.
    expect(checkContentDigest(response.headers['Content-Digest'], response.body)).toEqual({
      ok: true,
    });

    response.headers['Signature-Input'] = B24_SIGNATURE_INPUT;
    response.headers.Signature = B24_SIGNATURE;
    const jwk = createPublicKey(ECC_P256_PUBLIC_PEM).export({ format: 'jwk' });
    for (const key of [ECC_P256_PUBLIC_PEM, jwk, createPublicKey(ECC_P256_PUBLIC_PEM)]) {
      const result = await verifyMessageSignature(response, {
        keyLookup: () => ({ key, alg: 'ecdsa-p256-sha256' }),
        now: new Date(RFC_CREATED * 1000),
      });
      expect(result).toMatchObject({ ok: true, label: 'sig-b24', keyid: 'test-key-ecc-p256' });
    }
    const options: VerifyOptions = {
      keyLookup: () => ({ key: ECC_P256_PUBLIC_PEM, alg: 'ecdsa-p256-sha256' }),
      now: new Date(RFC_CREATED * 1000),
    };
    expect(reasonOf(await verifyMessageSignature({ ...response, status: 201 }, options))).toBe(
      'bad_signature',
    );
    expect(
      reasonOf(
        await verifyMessageSignature({ ...response, body: '{"message": "bad dog"}' }, options),
      ),
    ).toBe('digest_mismatch');
  });

  it('B.2.4: our ecdsa signature of the same response has the published input and verifies', async () => {
    const response = rfcResponse();
    const headers = signMessage(
      { ...response, headers: { ...response.headers } },
      {
        keyid: 'test-key-ecc-p256',
        key: ECC_P256_PRIVATE_PEM,
        alg: 'ecdsa-p256-sha256',
        algParameter: false,
        label: 'sig-b24',
        components: ['@status', 'content-type', 'content-digest', 'content-length'],
        created: new Date(RFC_CREATED * 1000),
      },
    );
    // We write sha-256 digests, so the digest (not the input) differs from the published one.
    expect(headers['Signature-Input']).toBe(B24_SIGNATURE_INPUT);
    expect(headers['Content-Digest']).toBe(contentDigest(response.body));
    expect(headers.Signature).toMatch(/^sig-b24=:[A-Za-z0-9+/]{86}==:$/);
    const result = await verifyMessageSignature(
      { ...response, headers: { ...response.headers, ...headers } },
      {
        keyLookup: () => ({ key: ECC_P256_PUBLIC_PEM, alg: 'ecdsa-p256-sha256' }),
        now: new Date(RFC_CREATED * 1000),
      },
    );
    expect(result.ok).toBe(true);
  });
});

describe('signing and verifying', () => {
  it.each<[SignatureAlgorithm, string]>([
    ['ed25519', 'platform-ed'],
    ['ecdsa-p256-sha256', 'platform-ec'],
  ])('round trips with %s', async (alg, keyid) => {
    const message = signed(webhookRequest(), {
      keyid,
      alg,
      key: keys[alg].privateKey,
      nonce: 'n-1',
      tag: 'ucp',
      expires: new Date(NOW.getTime() + 60_000),
    });
    expect(message.headers['Content-Digest']).toBe(contentDigest(message.body!));
    expect(message.headers['Signature-Input']).toBe(
      `sig1=("@method" "@target-uri" "content-type" "content-digest" "idempotency-key");created=${NOW_S};expires=${NOW_S + 60};nonce="n-1";keyid="${keyid}";alg="${alg}";tag="ucp"`,
    );
    const result = await verify(message, { nonceStore: new InMemoryNonceStore(() => NOW) });
    expect(result).toEqual({
      ok: true,
      label: 'sig1',
      keyid,
      alg,
      components: ['@method', '@target-uri', 'content-type', 'content-digest', 'idempotency-key'],
      params: { created: NOW_S, expires: NOW_S + 60, nonce: 'n-1', keyid, alg, tag: 'ucp' },
    });
  });

  it('accepts private and public keys as KeyObject, JWK and PEM', async () => {
    const { privateKey, publicKey } = keys['ecdsa-p256-sha256'];
    const privateForms = [
      privateKey,
      privateKey.export({ format: 'jwk' }),
      privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    ];
    const publicForms = [
      publicKey,
      publicKey.export({ format: 'jwk' }),
      publicKey.export({ format: 'pem', type: 'spki' }) as string,
      privateKey.export({ format: 'jwk' }),
    ];
    for (const key of privateForms) {
      const message = signed(webhookRequest(), { key });
      for (const publicForm of publicForms) {
        const result = await verify(message, {
          keyLookup: () => ({ key: publicForm, alg: 'ecdsa-p256-sha256' }),
        });
        expect(result.ok).toBe(true);
      }
    }
  });

  it('signs with the default components: method, target URI and the body digest', async () => {
    const headers = signMessage(webhookRequest(), {
      keyid: 'platform-ed',
      key: keys.ed25519.privateKey,
      alg: 'ed25519',
      created: NOW,
    });
    expect(headers['Signature-Input']).toBe(
      `sig1=("@method" "@target-uri" "content-digest");created=${NOW_S};keyid="platform-ed";alg="ed25519"`,
    );
    const message = webhookRequest();
    expect(
      reasonOf(await verify({ ...message, headers: { ...message.headers, ...headers } })),
    ).toBe('ok');
  });

  it('signs a response over @status', async () => {
    const response = { status: 202, headers: { 'Content-Type': 'application/json' }, body: '{}' };
    const headers = signMessage(response, {
      keyid: 'platform-ed',
      key: keys.ed25519.privateKey,
      alg: 'ed25519',
      created: NOW,
    });
    expect(headers['Signature-Input']).toContain('("@status" "content-digest")');
    const withHeaders = { ...response, headers: { ...response.headers, ...headers } };
    expect(
      reasonOf(
        await verifyMessageSignature(withHeaders, { keyLookup: lookup(registered), now: NOW }),
      ),
    ).toBe('ok');
    expect(
      reasonOf(
        await verifyMessageSignature(
          { ...withHeaders, status: 200 },
          { keyLookup: lookup(registered), now: NOW },
        ),
      ),
    ).toBe('bad_signature');
  });

  it('builds derived components from the target URI', () => {
    const base = createSignatureBase(
      {
        method: 'GET',
        url: 'https://Pay.Example.IN:443/a%20b/c?x=1&y=%2F',
        headers: { 'X-Multi': ['  one ', 'two  '], 'X-Empty': '' },
      },
      ['@method', '@target-uri', '@authority', '@scheme', '@path', '@query', 'x-multi', 'x-empty'],
      { created: 1 },
    );
    expect(base.split('\n')).toEqual([
      '"@method": GET',
      '"@target-uri": https://pay.example.in/a%20b/c?x=1&y=%2F',
      '"@authority": pay.example.in',
      '"@scheme": https',
      '"@path": /a%20b/c',
      '"@query": ?x=1&y=%2F',
      '"x-multi": one, two',
      '"x-empty": ',
      '"@signature-params": ("@method" "@target-uri" "@authority" "@scheme" "@path" "@query" "x-multi" "x-empty");created=1',
    ]);
    const noQuery = createSignatureBase(
      { method: 'GET', url: 'http://h:8080', headers: {} },
      ['@authority', '@path', '@query'],
      {},
    );
    expect(noQuery.split('\n').slice(0, 3)).toEqual([
      '"@authority": h:8080',
      '"@path": /',
      '"@query": ?',
    ]);
  });

  it('joins repeated signature header lines before parsing', async () => {
    const first = signed(webhookRequest(), { label: 'a' });
    const second = signed(webhookRequest(), {
      label: 'b',
      keyid: 'platform-ed',
      key: keys.ed25519.privateKey,
      alg: 'ed25519',
    });
    const message: HttpRequestMessage = {
      ...webhookRequest(),
      headers: {
        ...first.headers,
        'Signature-Input': [
          first.headers['Signature-Input'] as string,
          second.headers['Signature-Input'] as string,
        ],
        Signature: [first.headers.Signature as string, second.headers.Signature as string],
      },
    };
    expect(await verify(message, { label: 'b' })).toMatchObject({
      ok: true,
      label: 'b',
      keyid: 'platform-ed',
    });
    expect(await verify(message)).toMatchObject({ ok: true, label: 'a' });
  });

  it('uses the first signature that verifies and otherwise reports the first failure', async () => {
    const good = signed(webhookRequest(), { label: 'good' });
    const bad = signed(webhookRequest(), { label: 'bad', keyid: 'nobody' });
    const message: HttpRequestMessage = {
      ...good,
      headers: {
        ...good.headers,
        'Signature-Input': `${bad.headers['Signature-Input'] as string}, ${good.headers['Signature-Input'] as string}`,
        Signature: `${bad.headers.Signature as string}, ${good.headers.Signature as string}`,
      },
    };
    expect(await verify(message)).toMatchObject({ ok: true, label: 'good' });
    expect(await verify(message, { label: 'bad' })).toMatchObject({
      ok: false,
      reason: 'unknown_key',
      label: 'bad',
      keyid: 'nobody',
    });
  });

  it('selects signatures by tag', async () => {
    const message = signed(webhookRequest(), { tag: 'ucp' });
    expect(reasonOf(await verify(message, { tag: 'ucp' }))).toBe('ok');
    expect(reasonOf(await verify(message, { tag: 'other' }))).toBe('missing');
  });

  it('refuses to sign what it cannot', () => {
    const base = {
      keyid: 'k',
      key: keys.ed25519.privateKey,
      alg: 'ed25519' as const,
      created: NOW,
    };
    const noBody = { method: 'GET', url: 'https://a.example/', headers: {} };
    expect(() => signMessage(noBody, { ...base, components: ['content-digest'] })).toThrow(
      MessageSigningError,
    );
    expect(() => signMessage(noBody, { ...base, components: ['x-absent'] })).toThrow(
      MessageSigningError,
    );
    expect(() => signMessage(noBody, { ...base, components: ['@status'] })).toThrow(
      MessageSigningError,
    );
    expect(() => signMessage(noBody, { ...base, components: ['@method', '@method'] })).toThrow(
      MessageSigningError,
    );
    expect(() => signMessage(noBody, { ...base, components: ['X-Upper'] })).toThrow(
      MessageSigningError,
    );
    expect(() => signMessage(noBody, { ...base, label: 'Sig' })).toThrow(MessageSigningError);
    expect(() => signMessage(noBody, { ...base, key: keys.ed25519.publicKey })).toThrow(
      MessageSigningError,
    );
    expect(() => signMessage(noBody, { ...base, alg: 'ecdsa-p256-sha256' })).toThrow(
      MessageSigningError,
    );
    expect(() => signMessage(noBody, { ...base, expires: new Date(NOW.getTime() - 1000) })).toThrow(
      MessageSigningError,
    );
  });
});

describe('verification failures', () => {
  it('tampered header, method, path or query: bad_signature', async () => {
    const message = signed(webhookRequest());
    const cases: HttpRequestMessage[] = [
      { ...message, headers: { ...message.headers, 'Idempotency-Key': 'k-124' } },
      { ...message, method: 'PUT' },
      { ...message, url: 'https://merchant.example.in/ucp/webhooks/other?attempt=1' },
      { ...message, url: 'https://merchant.example.in/ucp/webhooks?attempt=2' },
      { ...message, url: 'https://attacker.example/ucp/webhooks?attempt=1' },
    ];
    for (const tampered of cases) {
      expect(reasonOf(await verify(tampered))).toBe('bad_signature');
    }
  });

  it('tampered body: digest_mismatch; a recomputed digest: bad_signature', async () => {
    const message = signed(webhookRequest());
    const body = '{"type":"order.updated","id":"ord_2"}';
    expect(await verify({ ...message, body })).toMatchObject({
      ok: false,
      reason: 'digest_mismatch',
    });
    const rehashed = {
      ...message,
      body,
      headers: { ...message.headers, 'Content-Digest': contentDigest(body) },
    };
    expect(reasonOf(await verify(rehashed))).toBe('bad_signature');
  });

  it('covered content-digest with no body supplied to check: digest_mismatch', async () => {
    const message = signed(webhookRequest());
    expect(reasonOf(await verify({ ...message, body: undefined }))).toBe('digest_mismatch');
  });

  it('a body not covered by content-digest: missing_component', async () => {
    const message = signed(webhookRequest(), { components: ['@method', '@target-uri'] });
    expect(await verify(message)).toMatchObject({ ok: false, reason: 'missing_component' });
    expect(reasonOf(await verify(message, { requireDigestForBody: false }))).toBe('ok');
  });

  it('required components not covered: missing_component; @target-uri stands for authority and path', async () => {
    const onlyTarget = signed(webhookRequest(), { components: ['@target-uri', 'content-digest'] });
    expect(await verify(onlyTarget)).toMatchObject({ ok: false, reason: 'missing_component' });
    expect(
      reasonOf(await verify(onlyTarget, { requiredComponents: ['@authority', '@path', '@query'] })),
    ).toBe('ok');
    const split = signed(webhookRequest(), {
      components: ['@method', '@authority', '@path', 'content-digest'],
    });
    expect(reasonOf(await verify(split))).toBe('ok');
    expect(reasonOf(await verify(split, { requiredComponents: ['@method', '@target-uri'] }))).toBe(
      'missing_component',
    );
  });

  it('a covered header absent from the message: missing_component', async () => {
    const message = signed(webhookRequest());
    const headers = { ...message.headers };
    delete headers['Idempotency-Key'];
    expect(reasonOf(await verify({ ...message, headers }))).toBe('missing_component');
  });

  it('expires in the past: expired (beyond the skew)', async () => {
    const message = signed(webhookRequest(), { expires: new Date(NOW.getTime() + 10_000) });
    expect(reasonOf(await verify(message, { now: new Date(NOW.getTime() + 60_000) }))).toBe('ok');
    expect(reasonOf(await verify(message, { now: new Date(NOW.getTime() + 71_000) }))).toBe(
      'expired',
    );
    expect(
      reasonOf(
        await verify(message, { now: new Date(NOW.getTime() + 11_000), clockSkewSeconds: 0 }),
      ),
    ).toBe('expired');
  });

  it('created in the future: not_yet_valid beyond the skew', async () => {
    expect(
      reasonOf(
        await verify(signed(webhookRequest(), { created: new Date(NOW.getTime() + 30_000) })),
      ),
    ).toBe('ok');
    expect(
      reasonOf(
        await verify(signed(webhookRequest(), { created: new Date(NOW.getTime() + 61_000) })),
      ),
    ).toBe('not_yet_valid');
  });

  it('older than the maximum age: too_old', async () => {
    const message = signed(webhookRequest());
    const at = (s: number) => new Date(NOW.getTime() + s * 1000);
    expect(reasonOf(await verify(message, { now: at(DEFAULT_MAX_AGE_SECONDS + 60) }))).toBe('ok');
    expect(reasonOf(await verify(message, { now: at(DEFAULT_MAX_AGE_SECONDS + 61) }))).toBe(
      'too_old',
    );
    expect(
      reasonOf(await verify(message, { now: at(31), maxAgeSeconds: 30, clockSkewSeconds: 0 })),
    ).toBe('too_old');
  });

  it('a nonce seen before: replayed; per key; a bad signature does not use the nonce up', async () => {
    const nonceStore = new InMemoryNonceStore(() => NOW);
    const message = signed(webhookRequest(), { nonce: 'abc' });
    const forged = { ...message, method: 'DELETE' };
    expect(reasonOf(await verify(forged, { nonceStore }))).toBe('bad_signature');
    expect(reasonOf(await verify(message, { nonceStore }))).toBe('ok');
    expect(reasonOf(await verify(message, { nonceStore }))).toBe('replayed');
    const otherKey = signed(webhookRequest(), {
      nonce: 'abc',
      keyid: 'platform-ed',
      key: keys.ed25519.privateKey,
      alg: 'ed25519',
    });
    expect(reasonOf(await verify(otherKey, { nonceStore }))).toBe('ok');
  });

  it('remembers a nonce until the signature could no longer be accepted', async () => {
    let now = NOW;
    const nonceStore = new InMemoryNonceStore(() => now);
    const claims: Date[] = [];
    const spy = {
      claim: (keyid: string, nonce: string, until: Date) => {
        claims.push(until);
        return nonceStore.claim(keyid, nonce, until);
      },
    };
    await verify(signed(webhookRequest(), { nonce: 'n1' }), { nonceStore: spy });
    await verify(
      signed(webhookRequest(), { nonce: 'n2', expires: new Date(NOW.getTime() + 10_000) }),
      {
        nonceStore: spy,
      },
    );
    expect(claims.map((d) => d.getTime() / 1000 - NOW_S)).toEqual([
      DEFAULT_MAX_AGE_SECONDS + 60,
      70,
    ]);
    expect(nonceStore.size).toBe(2);
    now = new Date(NOW.getTime() + 71_000);
    await nonceStore.claim('k', 'other', new Date(now.getTime() + 1000));
    expect(nonceStore.size).toBe(2);
  });

  it('a nonce may be required', async () => {
    expect(reasonOf(await verify(signed(webhookRequest()), { requireNonce: true }))).toBe(
      'malformed',
    );
    expect(
      reasonOf(await verify(signed(webhookRequest(), { nonce: 'x' }), { requireNonce: true })),
    ).toBe('ok');
  });

  it('unknown keyid: unknown_key', async () => {
    expect(await verify(signed(webhookRequest(), { keyid: 'who' }))).toMatchObject({
      ok: false,
      reason: 'unknown_key',
      keyid: 'who',
    });
  });

  it('alg parameter or key type not matching the registered key: alg_mismatch', async () => {
    const message = signed(webhookRequest());
    expect(
      reasonOf(
        await verify(message, {
          keyLookup: () => ({ key: keys.ed25519.publicKey, alg: 'ed25519' }),
        }),
      ),
    ).toBe('alg_mismatch');
    expect(
      reasonOf(
        await verify(message, {
          keyLookup: () => ({ key: keys.ed25519.publicKey, alg: 'ecdsa-p256-sha256' }),
        }),
      ),
    ).toBe('alg_mismatch');
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey;
    expect(
      reasonOf(
        await verify(message, { keyLookup: () => ({ key: p384, alg: 'ecdsa-p256-sha256' }) }),
      ),
    ).toBe('alg_mismatch');
    // Another key of the right type: the signature just does not verify.
    const otherEc = keyPair('ecdsa-p256-sha256').publicKey;
    expect(
      reasonOf(
        await verify(message, { keyLookup: () => ({ key: otherEc, alg: 'ecdsa-p256-sha256' }) }),
      ),
    ).toBe('bad_signature');
  });

  it('no signature headers: missing', async () => {
    expect(reasonOf(await verify(webhookRequest()))).toBe('missing');
    const message = signed(webhookRequest());
    const headers = { ...message.headers };
    delete headers.Signature;
    expect(reasonOf(await verify({ ...message, headers }))).toBe('missing');
    expect(reasonOf(await verify(message, { label: 'sig2' }))).toBe('missing');
  });

  it.each<[string, string, string]>([
    ['not a dictionary', '(((', 'sig1=:AAAA:'],
    ['signature not a byte sequence', 'sig1=("@method");created=1;keyid="k"', 'sig1="abc"'],
    ['signature missing for the label', 'sig1=("@method");created=1;keyid="k"', 'sig2=:AAAA:'],
    ['input not an inner list', 'sig1=1', 'sig1=:AAAA:'],
    ['no created', 'sig1=("@method");keyid="platform-ec"', 'sig1=:AAAA:'],
    ['created a string', 'sig1=("@method");created="1";keyid="platform-ec"', 'sig1=:AAAA:'],
    ['created a decimal', 'sig1=("@method");created=1.5;keyid="platform-ec"', 'sig1=:AAAA:'],
    ['no keyid', 'sig1=("@method");created=1', 'sig1=:AAAA:'],
    ['keyid a token', 'sig1=("@method");created=1;keyid=platform-ec', 'sig1=:AAAA:'],
    ['expires before created', 'sig1=("@method");created=10;expires=5;keyid="k"', 'sig1=:AAAA:'],
    ['component parameters', 'sig1=("@query-param";name="a");created=1;keyid="k"', 'sig1=:AAAA:'],
    ['unknown derived component', 'sig1=("@request-target");created=1;keyid="k"', 'sig1=:AAAA:'],
    ['uppercase field name', 'sig1=("Content-Type");created=1;keyid="k"', 'sig1=:AAAA:'],
    ['component twice', 'sig1=("@method" "@method");created=1;keyid="k"', 'sig1=:AAAA:'],
    ['component a token', 'sig1=(date);created=1;keyid="k"', 'sig1=:AAAA:'],
    ['bad base64', 'sig1=("@method");created=1;keyid="k"', 'sig1=:!!:'],
  ])('malformed: %s', async (_name, input, signature) => {
    const message = {
      ...webhookRequest(),
      headers: { 'Signature-Input': input, Signature: signature },
    };
    expect(
      await verify(message, { requireDigestForBody: false, requiredComponents: [] }),
    ).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
  });

  it('too many signatures: malformed', async () => {
    const labels = Array.from({ length: 9 }, (_, i) => `s${i}`);
    const message = {
      ...webhookRequest(),
      headers: {
        'Signature-Input': labels.map((l) => `${l}=("@method");created=1;keyid="k"`).join(', '),
        Signature: labels.map((l) => `${l}=:AAAA:`).join(', '),
      },
    };
    expect(reasonOf(await verify(message))).toBe('malformed');
  });

  it('a wrong-length or garbage signature: bad_signature', async () => {
    const message = signed(webhookRequest());
    for (const value of ['sig1=:AAAA:', `sig1=:${Buffer.alloc(64).toString('base64')}:`]) {
      expect(
        reasonOf(await verify({ ...message, headers: { ...message.headers, Signature: value } })),
      ).toBe('bad_signature');
    }
  });

  it('a line break in a covered value cannot reach the base', async () => {
    const message = signed(webhookRequest());
    const headers = { ...message.headers, 'Idempotency-Key': 'k-123\n"@method": GET' };
    expect(reasonOf(await verify({ ...message, headers }))).toBe('malformed');
  });
});

describe('Content-Digest', () => {
  it('writes sha-256 and checks sha-256 and sha-512', () => {
    expect(contentDigest('')).toBe('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:');
    const body = Buffer.from('{"hello": "world"}');
    expect(
      checkContentDigest('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:', body).ok,
    ).toBe(true);
    expect(checkContentDigest(rfcRequest().headers['Content-Digest'], body).ok).toBe(true);
    expect(checkContentDigest('md5=:AAAA:', body).ok).toBe(false);
    expect(checkContentDigest('sha-256="x"', body).ok).toBe(false);
    expect(checkContentDigest('sha-256=:AAAA:', body).ok).toBe(false);
    expect(checkContentDigest('not a dictionary (', body).ok).toBe(false);
    // Each listed algorithm we know must match.
    expect(
      checkContentDigest(
        `sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, sha-512=:AAAA:`,
        body,
      ).ok,
    ).toBe(false);
  });
});
