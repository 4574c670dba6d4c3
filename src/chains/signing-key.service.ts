import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';

import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { calculateJwkThumbprint, exportJWK } from 'jose';

import { Clock } from '../common/clock';
import { openSealed, SealedValueError, sealSecret } from '../common/crypto/sealed';
import { APP_CONFIG, AppConfig, ConfigError } from '../config/app.config';
import { Tx } from '../database/tx';
import { signHash } from './chain-entry';
import { JwkResponse, JwksResponse } from './dto/jwks.response';
import { PublicOkpJwk, SigningKey } from './entities/signing-key.entity';
import { SigningKeyRepository } from './signing-key.repository';

interface ActiveKey {
  kid: string;
  privateKey: KeyObject;
}

/**
 * The service's Ed25519 signing key, chosen once at boot:
 * - SIGNING_PRIVATE_KEY set (required in live mode): that key; its public half is recorded in
 *   signing_keys (no private part).
 * - otherwise: the newest non-retired stored key, generated and stored on first boot, sealed with
 *   AES-256-GCM under SIGNING_KEY_ENCRYPTION_KEY (bound to its kid). Instances booting together
 *   serialise on an advisory lock, so they converge on one key.
 * Private keys an earlier version stored in plaintext are sealed in place at boot, either way.
 * kid is the RFC 7638 thumbprint, so the same key always gets the same kid.
 */
@Injectable()
export class SigningKeyService implements OnModuleInit {
  private readonly logger = new Logger(SigningKeyService.name);
  private active: ActiveKey | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeyRepository,
    private readonly tx: Tx,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    const pem = this.config.signingPrivateKeyPem;
    await this.sealPlaintextKeys();
    this.active = pem ? await this.useConfiguredKey(pem) : await this.useStoredKey();
    this.logger.log(
      `signing with kid ${this.active.kid} (${pem ? 'SIGNING_PRIVATE_KEY' : 'stored key'})`,
    );
  }

  get kid(): string {
    return this.current().kid;
  }

  /** Compact JWS over a chain hash with the active key. */
  async sign(hash: string): Promise<{ kid: string; jws: string }> {
    const key = this.current();
    return { kid: key.kid, jws: await signHash(hash, key) };
  }

  /** Every key that ever signed (retired ones included), so old entries keep verifying. */
  async jwks(): Promise<JwksResponse> {
    const rows = await this.keys.listAll();
    return {
      keys: rows.map((k): JwkResponse => ({
        ...k.publicJwk,
        kid: k.kid,
        alg: 'EdDSA',
        use: 'sig',
      })),
    };
  }

  private current(): ActiveKey {
    if (!this.active) {
      throw new Error('SigningKeyService used before module init');
    }
    return this.active;
  }

  private async useConfiguredKey(pem: string): Promise<ActiveKey> {
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(pem);
    } catch {
      throw new ConfigError('SIGNING_PRIVATE_KEY must be a PEM (PKCS#8) Ed25519 private key');
    }
    if (privateKey.asymmetricKeyType !== 'ed25519') {
      throw new ConfigError(
        `SIGNING_PRIVATE_KEY must be an Ed25519 key (got ${privateKey.asymmetricKeyType})`,
      );
    }
    const { kid, publicJwk } = await describe(privateKey);
    await this.tx.run(() => this.keys.insertIfAbsent(this.row(kid, publicJwk, null)));
    return { kid, privateKey };
  }

  private useStoredKey(): Promise<ActiveKey> {
    const key = this.encryptionKey();
    return this.tx.run(async () => {
      await this.keys.lockBootstrap();
      const stored = await this.keys.findNewestUsable();
      if (stored) {
        let pem: string;
        try {
          pem = openSealed(key, stored.privateKeySealed!, sealingContext(stored.kid));
        } catch (err) {
          if (!(err instanceof SealedValueError)) {
            throw err;
          }
          throw new ConfigError(
            `stored signing key ${stored.kid} ${err.message}: SIGNING_KEY_ENCRYPTION_KEY must be the key it was stored with (or retire the key to generate a new one)`,
          );
        }
        return { kid: stored.kid, privateKey: createPrivateKey(pem) };
      }
      const { privateKey } = generateKeyPairSync('ed25519');
      const { kid, publicJwk } = await describe(privateKey);
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      await this.keys.insertIfAbsent(
        this.row(kid, publicJwk, sealSecret(key, pem, sealingContext(kid))),
      );
      return { kid, privateKey };
    });
  }

  /**
   * Earlier versions stored generated keys in plaintext: seal them in place (same kid, so the
   * key keeps signing and verifying). Under the bootstrap lock, so concurrent boots seal once.
   */
  private sealPlaintextKeys(): Promise<void> {
    return this.tx.run(async () => {
      await this.keys.lockBootstrap();
      const rows = await this.keys.findUnsealed();
      if (rows.length === 0) {
        return;
      }
      if (!this.config.signingKeyEncryptionKey) {
        throw new ConfigError(
          `signing_keys holds ${rows.length} private key(s) stored in plaintext by an earlier version; set SIGNING_KEY_ENCRYPTION_KEY (32 bytes, base64 or hex) so they are encrypted at boot`,
        );
      }
      for (const row of rows) {
        await this.keys.setSealed(
          row.kid,
          sealSecret(this.config.signingKeyEncryptionKey, row.pem, sealingContext(row.kid)),
        );
      }
      this.logger.warn(
        `encrypted ${rows.length} signing key(s) stored in plaintext by an earlier version`,
      );
    });
  }

  private encryptionKey(): Buffer {
    const key = this.config.signingKeyEncryptionKey;
    if (!key) {
      throw new ConfigError(
        'SIGNING_KEY_ENCRYPTION_KEY is required to store a generated signing key (or set SIGNING_PRIVATE_KEY)',
      );
    }
    return key;
  }

  private row(kid: string, publicJwk: PublicOkpJwk, privateKeySealed: string | null): SigningKey {
    return {
      kid,
      alg: 'EdDSA',
      privateKeySealed,
      publicJwk,
      createdAt: this.clock.now(),
      retiredAt: null,
    };
  }
}

/** Additional authenticated data: a sealed key copied onto another row does not open. */
function sealingContext(kid: string): string {
  return `signing_keys:${kid}`;
}

async function describe(privateKey: KeyObject): Promise<{ kid: string; publicJwk: PublicOkpJwk }> {
  const jwk = await exportJWK(createPublicKey(privateKey));
  const publicJwk: PublicOkpJwk = { kty: 'OKP', crv: 'Ed25519', x: jwk.x! };
  return { kid: await calculateJwkThumbprint(publicJwk, 'sha256'), publicJwk };
}
