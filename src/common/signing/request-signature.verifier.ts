import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';

import { APP_CONFIG, AppConfig } from '../../config/app.config';
import type { RegisteredKey } from '../auth/principal';
import { Clock } from '../clock';
import { sha256Hex } from '../crypto/secrets';
import { AppError } from '../errors/app-error';
import { decodeBase64Url, verifyDetached } from './public-key';
import { SeenSignatureRepository } from './seen-signature.repository';
import { signedBytes } from './signed-bytes';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

const invalidSignature = (message: string) =>
  new AppError(401, 'invalid_request', 'invalid_signature', message, 'Signature');
const staleTimestamp = (message: string) =>
  new AppError(401, 'invalid_request', 'stale_timestamp', message, 'Timestamp');

/**
 * Our signing profile (docs/security.md "Signing requests", docs/acp.md §3):
 * Signature = base64url(sign(Timestamp \n METHOD \n path?query \n JCS(body))),
 * Ed25519 or P-256 (r||s), |now − Timestamp| ≤ SIGNATURE_CLOCK_SKEW_S, each signature accepted once.
 */
@Injectable()
export class RequestSignatureVerifier {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly seen: SeenSignatureRepository,
  ) {}

  async verify(req: Request, key: RegisteredKey): Promise<void> {
    const signature = req.header('signature');
    const timestamp = req.header('timestamp');
    if (!signature || !timestamp) {
      throw invalidSignature(
        'This key has a registered public key: send Signature and Timestamp headers',
      );
    }
    if (!RFC3339.test(timestamp) || Number.isNaN(Date.parse(timestamp))) {
      throw staleTimestamp('Timestamp must be an RFC 3339 date-time');
    }
    const skewMs = Math.abs(this.clock.now().getTime() - Date.parse(timestamp));
    if (skewMs > this.config.signatureSkewSeconds * 1000) {
      throw staleTimestamp(
        `Timestamp is outside the ±${this.config.signatureSkewSeconds} s window`,
      );
    }
    const sig = decodeBase64Url(signature);
    const data = signedBytes(timestamp, req.method, req.originalUrl, req.body as unknown);
    if (!sig || !verifyDetached(key.pem, key.alg, data, sig)) {
      throw invalidSignature('Signature does not verify for this request');
    }
    // Replay protection: a signature is good for one request. Kept past the skew window.
    const expiresAt = new Date(
      this.clock.now().getTime() + 2 * this.config.signatureSkewSeconds * 1000,
    );
    if (!(await this.seen.remember(sha256Hex(sig), expiresAt))) {
      throw invalidSignature('This signature was already used; sign each request afresh');
    }
  }
}
