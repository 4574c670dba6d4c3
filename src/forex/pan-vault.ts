import { Inject, Injectable, OnModuleInit } from '@nestjs/common';

import { APP_CONFIG, AppConfig, ConfigError } from '../config/app.config';
import { forexErrors } from './forex.errors';
import { checkPan, digestPan, isPanDigest, PAN_HOLDER_TYPES, PanDigest } from './pan';

/**
 * Turns a raw PAN into what the service keeps (pan.ts): the keyed hash under the configured pepper
 * and version, and the masked form. The raw value lives only in this call's arguments.
 */
@Injectable()
export class PanVault implements OnModuleInit {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Live mode does not start without its own pepper (the development one is public). */
  onModuleInit(): void {
    this.pepper();
  }

  /**
   * A raw PAN (or a digest made earlier by this vault) for a file whose holder must be one of
   * `allowed`. Refusals never echo the value.
   */
  digest(pan: string | PanDigest, allowed: readonly string[], param = '$.pan'): PanDigest {
    if (typeof pan !== 'string') {
      if (!isPanDigest(pan)) {
        throw forexErrors.panInvalid(param);
      }
      if (!allowed.includes(pan.holderType)) {
        throw forexErrors.panHolderType(param, describe(allowed));
      }
      return pan;
    }
    const checked = checkPan(pan, Object.keys(PAN_HOLDER_TYPES));
    if (!checked.ok) {
      throw forexErrors.panInvalid(param);
    }
    if (!allowed.includes(checked.pan[3])) {
      throw forexErrors.panHolderType(param, describe(allowed));
    }
    return digestPan(checked.pan, this.pepper(), this.config.forexPanKeyVersion);
  }

  private pepper(): Buffer {
    const pepper = this.config.forexPanPepper;
    if (!pepper) {
      throw new ConfigError(
        'FOREX_PAN_PEPPER is required in live mode (32 bytes, base64 or hex); PANs are stored only as an HMAC under it',
      );
    }
    return pepper;
  }

  /** Format-only digest (any holder type), for the REST guard that hashes before the kind is known. */
  digestAnyHolder(pan: string, param = '$.pan'): PanDigest {
    return this.digest(pan, Object.keys(PAN_HOLDER_TYPES), param);
  }
}

function describe(allowed: readonly string[]): string {
  return allowed.length === 1
    ? `an ${PAN_HOLDER_TYPES[allowed[0]]} (${allowed[0]})`
    : `a company or other entity (${allowed.join(', ')})`;
}
