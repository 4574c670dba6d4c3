import { Injectable } from '@nestjs/common';
import { IsNull, Not } from 'typeorm';

import { Tx } from '../database/tx';
import { SigningKey } from './entities/signing-key.entity';

/** Arbitrary constant naming the "pick or create the stored signing key" advisory lock. */
const BOOTSTRAP_LOCK = 7_637_000_100;

@Injectable()
export class SigningKeyRepository {
  constructor(private readonly tx: Tx) {}

  /** Transaction-scoped: two instances booting at once take turns, the second sees the first's key. */
  async lockBootstrap(): Promise<void> {
    await this.tx.manager.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
  }

  /** Newest key this service holds the private half of and has not retired. */
  findNewestUsable(): Promise<SigningKey | null> {
    return this.tx.manager.findOne(SigningKey, {
      where: { retiredAt: IsNull(), privateKeySealed: Not(IsNull()) },
      order: { createdAt: 'DESC', kid: 'DESC' },
    });
  }

  /** Keys an earlier version stored with the private half in plaintext (anything not sealed). */
  async findUnsealed(): Promise<{ kid: string; pem: string }[]> {
    return this.tx.manager.query(
      `SELECT kid, private_key_pem AS pem FROM signing_keys
        WHERE private_key_pem IS NOT NULL AND private_key_pem NOT LIKE 'v1.%'
        ORDER BY kid FOR UPDATE`,
    );
  }

  async setSealed(kid: string, sealed: string): Promise<void> {
    await this.tx.manager.update(SigningKey, { kid }, { privateKeySealed: sealed });
  }

  /** Same kid = same key (thumbprint), so an existing row is left as it is. */
  async insertIfAbsent(key: SigningKey): Promise<void> {
    await this.tx.manager
      .createQueryBuilder()
      .insert()
      .into(SigningKey)
      .values(key)
      .orIgnore()
      .execute();
  }

  listAll(): Promise<SigningKey[]> {
    return this.tx.manager.find(SigningKey, { order: { createdAt: 'ASC', kid: 'ASC' } });
  }
}
