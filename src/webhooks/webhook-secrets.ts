import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

import { Inject, Injectable } from '@nestjs/common';

import { APP_CONFIG, AppConfig } from '../config/app.config';

const VERSION = 'v1';
const SECRET_BYTES = 32;

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (the HMAC key). */
export function issueWebhookSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * Seals webhook signing secrets at rest. Unlike API keys they cannot be hashed: we need the key
 * itself to compute an HMAC on every delivery. So they are encrypted with AES-256-GCM under
 * WEBHOOK_SECRET_KEY (config), with the endpoint id as additional authenticated data so a
 * ciphertext copied onto another row does not decrypt. Stored as
 * `v1.<iv>.<tag>.<ciphertext>` (base64url), leaving room for a key version later.
 */
@Injectable()
export class WebhookSecrets {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  seal(secret: string, endpointId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.config.webhookSecretKey, iv);
    cipher.setAAD(Buffer.from(endpointId));
    const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ct]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string, endpointId: string): string {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ct === undefined) {
      throw new Error(`webhook secret of ${endpointId} is not in the ${VERSION} sealed format`);
    }
    const decipher = createDecipheriv(
      'aes-256-gcm',
      this.config.webhookSecretKey,
      Buffer.from(iv, 'base64url'),
    );
    decipher.setAAD(Buffer.from(endpointId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(ct, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }
}
