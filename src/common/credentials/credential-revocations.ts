import { Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { Tx } from '../../database/tx';
import { CredentialCache } from '../auth/credential-cache';
import { randomToken } from '../ids';
import { LISTENER_APP_NAME_PREFIX, PgListener } from '../sweeper/pg-listener';

/** Before commit, from the revoking instance: drop and quarantine these ids, then acknowledge. */
export const REVOKING_CHANNEL = 'credentials_revoking';
/** `<nonce>:<instance id>` from each instance that did. */
export const REVOKING_ACK_CHANNEL = 'credentials_revoking_ack';
/** In the revoking transaction, so delivered on commit only: drop these ids (late listeners too). */
export const REVOKED_CHANNEL = 'credentials_revoked';
/** How long a revocation waits for the other instances to acknowledge before it goes ahead anyway. */
export const ACK_TIMEOUT_MS = 500;

interface RevokingMessage {
  ids: string[];
  nonce: string;
  from: string;
}

interface Waiter {
  missing: Set<string>;
  done: () => void;
}

/**
 * Makes a revocation effective on the very next request on every instance, although each caches
 * resolved credentials (CredentialCache). Called inside the transaction that revokes (revoking an
 * API key or protocol key, rotating an agent credential, changing an agent's public key):
 *
 * 1. this instance drops and quarantines the ids at once (no lookup in flight can cache them);
 * 2. every other instance with a LISTEN connection (found in pg_stat_activity by its
 *    application_name) is told the same over NOTIFY, and the revocation waits until each has
 *    acknowledged (at most ACK_TIMEOUT_MS; one that does not answer is logged and its cache
 *    expires within CREDENTIAL_CACHE_TTL_MS);
 * 3. the transaction commits, and a NOTIFY sent in it drops the ids once more everywhere.
 *
 * So when the revoke is answered no instance holds the credential and none can cache it before
 * the commit is visible. Fail safe: an instance whose LISTEN connection is down does not cache.
 */
@Injectable()
export class CredentialRevocations implements OnModuleInit {
  private readonly logger = new Logger(CredentialRevocations.name);
  private readonly waiters = new Map<string, Waiter>();

  constructor(
    private readonly tx: Tx,
    private readonly cache: CredentialCache,
    private readonly listener: PgListener,
  ) {}

  onModuleInit(): void {
    this.listener.onStateChange((up) => this.cache.setEnabled(up));
    this.listener.on(REVOKING_CHANNEL, (payload) => this.onRevoking(payload));
    this.listener.on(REVOKING_ACK_CHANNEL, (payload) => this.onAck(payload));
    this.listener.on(REVOKED_CHANNEL, (payload) => {
      const ids = parseIds(payload);
      if (ids) {
        this.cache.invalidate(ids);
      }
    });
  }

  /** In the revoking transaction, after its write. */
  async revoked(ids: string[]): Promise<void> {
    this.cache.invalidate(ids);
    await this.quarantineEverywhere(ids);
    await this.tx.manager.query('SELECT pg_notify($1, $2)', [
      REVOKED_CHANNEL,
      JSON.stringify({ ids }),
    ]);
    this.tx.afterCommit(() => this.cache.invalidate(ids));
  }

  private async quarantineEverywhere(ids: string[]): Promise<void> {
    if (!this.listener.isUp) {
      return; // our own cache is off; the others hear the NOTIFY at commit
    }
    const rows: { name: string }[] = await this.tx.manager.query(
      `SELECT application_name AS name FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE $1 AND application_name <> $2`,
      [`${LISTENER_APP_NAME_PREFIX}%`, this.listener.appName],
    );
    const missing = new Set(rows.map((r) => r.name.slice(LISTENER_APP_NAME_PREFIX.length)));
    if (missing.size === 0) {
      return;
    }
    const nonce = randomToken(12);
    let timer: NodeJS.Timeout | undefined;
    const acked = new Promise<boolean>((resolve) => {
      this.waiters.set(nonce, { missing, done: () => resolve(true) });
      timer = setTimeout(() => resolve(false), ACK_TIMEOUT_MS);
    });
    try {
      const message: RevokingMessage = { ids, nonce, from: this.listener.instanceId };
      if (!(await this.listener.notify(REVOKING_CHANNEL, JSON.stringify(message)))) {
        return;
      }
      if (!(await acked)) {
        this.logger.warn(
          { instances: [...missing], ids },
          'instances did not acknowledge a revocation in time; their cache expires it',
        );
      }
    } finally {
      clearTimeout(timer);
      this.waiters.delete(nonce);
    }
  }

  private onRevoking(payload: string): void {
    let message: RevokingMessage;
    try {
      message = JSON.parse(payload) as RevokingMessage;
    } catch {
      return;
    }
    if (!Array.isArray(message.ids) || message.from === this.listener.instanceId) {
      return;
    }
    this.cache.invalidate(message.ids.filter((id) => typeof id === 'string'));
    void this.listener.notify(REVOKING_ACK_CHANNEL, `${message.nonce}:${this.listener.instanceId}`);
  }

  private onAck(payload: string): void {
    const [nonce, instance] = payload.split(':');
    const waiter = this.waiters.get(nonce);
    if (waiter && waiter.missing.delete(instance) && waiter.missing.size === 0) {
      waiter.done();
    }
  }
}

function parseIds(payload: string): string[] | null {
  try {
    const { ids } = JSON.parse(payload) as { ids?: unknown };
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : null;
  } catch {
    return null;
  }
}
