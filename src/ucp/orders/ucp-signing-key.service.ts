import { createPrivateKey, generateKeyPairSync, KeyObject } from 'node:crypto';

import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { calculateJwkThumbprint, exportJWK } from 'jose';

import { Clock } from '../../common/clock';
import { openSealed, SealedValueError, sealSecret } from '../../common/crypto/sealed';
import { signMessage } from '../../common/signing/http-message-signatures';
import { APP_CONFIG, AppConfig, ConfigError } from '../../config/app.config';
import { Tx } from '../../database/tx';
import { setUcpSigningKeys, UcpSigningJwk } from '../ucp-profile';
import { UcpOrderRepository } from './ucp-order.repository';

const sealingContext = (kid: string) => `ucp_signing_key:${kid}`;

interface ActiveKey {
  kid: string;
  privateKey: KeyObject;
}

/** The RFC 9421 headers a signed UCP request carries besides its own. */
export interface UcpSignedHeaders {
  'content-digest': string;
  'signature-input': string;
  signature: string;
}

async function describe(privateKey: KeyObject): Promise<{ kid: string; jwk: UcpSigningJwk }> {
  const { kty, crv, x, y } = await exportJWK(privateKey);
  const base = { kty: kty, crv: crv!, x: x!, y: y! };
  const kid = await calculateJwkThumbprint(base, 'sha256');
  return { kid, jwk: { ...base, kid, use: 'sig', alg: 'ES256' } };
}

/**
 * Our ES256 (P-256) key for UCP message signatures (docs/ucp.md "Orders"), chosen once at boot,
 * the way src/chains/signing-key.service.ts keeps the receipt key: the newest non-retired stored
 * key, generated and stored on first boot sealed with AES-256-GCM under SIGNING_KEY_ENCRYPTION_KEY
 * (bound to its kid; instances booting together serialise on an advisory lock). kid is the RFC 7638
 * thumbprint. Without SIGNING_KEY_ENCRYPTION_KEY (live mode where it is unset) there is no key: no
 * signing_keys are published and UCP order webhooks are not registered.
 */
@Injectable()
export class UcpSigningKeyService implements OnModuleInit {
  private readonly logger = new Logger(UcpSigningKeyService.name);
  private active: ActiveKey | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: UcpOrderRepository,
    private readonly tx: Tx,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    const sealingKey = this.config.signingKeyEncryptionKey;
    if (!sealingKey) {
      this.logger.warn(
        'no SIGNING_KEY_ENCRYPTION_KEY: no UCP signing key, UCP order webhooks are off',
      );
      setUcpSigningKeys([]);
      return;
    }
    this.active = await this.tx.run(async () => {
      await this.repo.lockBootstrap();
      const stored = await this.repo.newestUsableKey();
      if (stored) {
        try {
          const pem = openSealed(
            sealingKey,
            stored.private_key_sealed!,
            sealingContext(stored.kid),
          );
          return { kid: stored.kid, privateKey: createPrivateKey(pem) };
        } catch (err) {
          if (!(err instanceof SealedValueError)) {
            throw err;
          }
          throw new ConfigError(
            `stored UCP signing key ${stored.kid} ${err.message}: SIGNING_KEY_ENCRYPTION_KEY must be the key it was stored with`,
          );
        }
      }
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const { kid, jwk } = await describe(privateKey);
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      await this.repo.insertKeyIfAbsent({
        kid,
        publicJwk: jwk,
        privateKeySealed: sealSecret(sealingKey, pem, sealingContext(kid)),
        now: this.clock.now(),
      });
      return { kid, privateKey };
    });
    const published = await this.repo.publishedKeys();
    setUcpSigningKeys(
      published.map((k) => ({ ...k.public_jwk, kid: k.kid, use: 'sig', alg: 'ES256' })),
    );
    this.logger.log(`UCP signing with kid ${this.active.kid}`);
  }

  get available(): boolean {
    return this.active !== null;
  }

  /**
   * RFC 9421 signature of a UCP request with a JSON body (docs/ucp.md "Order webhooks"):
   * `@method`, `@authority`, `@path` (and `@query` when there is one) plus every header given
   * (lower-case names) and `content-digest`; `created` and `keyid`, no `alg` (UCP derives it
   * from the key).
   */
  signRequest(input: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body: string;
    at: Date;
  }): UcpSignedHeaders {
    const key = this.active;
    if (!key) {
      throw new Error('no UCP signing key');
    }
    const url = new URL(input.url);
    const components = ['@method', '@authority', '@path'];
    if (url.search !== '') {
      components.push('@query');
    }
    components.push(...Object.keys(input.headers), 'content-digest');
    const added = signMessage(
      { method: input.method, url: input.url, headers: input.headers, body: input.body },
      {
        keyid: key.kid,
        key: key.privateKey,
        alg: 'ecdsa-p256-sha256',
        components,
        created: input.at,
        algParameter: false,
      },
    );
    return {
      'content-digest': added['Content-Digest']!,
      'signature-input': added['Signature-Input'],
      signature: added.Signature,
    };
  }
}
