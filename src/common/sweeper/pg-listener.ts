import { randomBytes } from 'node:crypto';

import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { Client, Notification } from 'pg';

import { APP_CONFIG, AppConfig } from '../../config/app.config';

/** application_name of every instance's LISTEN connection: `svc-listen:<instance id>`. */
export const LISTENER_APP_NAME_PREFIX = 'svc-listen:';
/** A query on the LISTEN connection proves it alive this often; one that fails drops it. */
const HEARTBEAT_MS = 5_000;
const QUERY_TIMEOUT_MS = 2_000;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

type Handler = (payload: string) => void;

/**
 * The instance's one dedicated Postgres LISTEN connection (a plain `pg.Client`, outside the pool,
 * so it also works when the pool goes through PgBouncer in transaction mode: point
 * DATABASE_LISTEN_URL at Postgres itself). NOTIFY is delivered at commit only, so a handler learns
 * of committed work: the outbox dispatcher is woken by it and credential revocations reach every
 * instance through it (docs/operations.md "Running more than one instance").
 *
 * Reconnects with backoff (100 ms doubling to 5 s) and checks itself every 5 s; whoever depends
 * on it hears every up/down change (`onStateChange`) and must stay correct while it is down: the
 * dispatcher keeps its poll, the credential cache stops caching.
 */
@Injectable()
export class PgListener implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(PgListener.name);
  /** Names this process among the listeners (pg_stat_activity.application_name). */
  readonly instanceId = randomBytes(6).toString('hex');
  private readonly channels = new Map<string, Handler[]>();
  private readonly stateHandlers: ((up: boolean) => void)[] = [];
  private readonly dead = new WeakSet<Client>();
  private client: Client | null = null;
  private up = false;
  private stopped = false;
  private backoffMs = FIRST_BACKOFF_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Connected and listening on every channel. */
  get isUp(): boolean {
    return this.up;
  }

  get appName(): string {
    return `${LISTENER_APP_NAME_PREFIX}${this.instanceId}`;
  }

  /** Register in onModuleInit: channels are LISTENed to when the connection opens. */
  on(channel: string, handler: Handler): void {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) {
      throw new Error(`bad channel name ${channel}`);
    }
    this.channels.set(channel, [...(this.channels.get(channel) ?? []), handler]);
  }

  onStateChange(handler: (up: boolean) => void): void {
    this.stateHandlers.push(handler);
  }

  /** NOTIFY outside any transaction (delivered at once), on this connection; false when it is down. */
  async notify(channel: string, payload: string): Promise<boolean> {
    const client = this.client;
    if (!client || !this.up) {
      return false;
    }
    try {
      await client.query('SELECT pg_notify($1, $2)', [channel, payload]);
      return true;
    } catch (err) {
      this.lost(client, err as Error);
      return false;
    }
  }

  /** Waits for the first connection (a failure is retried in the background, never stops the boot). */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.pgListen) {
      return;
    }
    await this.connect();
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), HEARTBEAT_MS);
    this.heartbeatTimer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeatTimer);
    const client = this.client;
    this.client = null;
    this.setUp(false);
    if (client) {
      this.dead.add(client);
      await client.end().catch(() => undefined);
    }
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.config.databaseListenUrl ?? this.config.databaseUrl,
      application_name: this.appName,
      connectionTimeoutMillis: QUERY_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      keepAlive: true,
    });
    client.on('notification', (n) => this.deliver(n));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      for (const channel of this.channels.keys()) {
        await client.query(`LISTEN ${channel}`);
      }
    } catch (err) {
      this.lost(client, err as Error);
      void client.end().catch(() => undefined);
      return;
    }
    if (this.stopped || this.dead.has(client)) {
      this.dead.add(client);
      void client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.backoffMs = FIRST_BACKOFF_MS;
    this.setUp(true);
  }

  private deliver(n: Notification): void {
    for (const handler of this.channels.get(n.channel) ?? []) {
      try {
        handler(n.payload ?? '');
      } catch (err) {
        this.logger.warn(
          { channel: n.channel, err: (err as Error).message },
          'notify handler failed',
        );
      }
    }
  }

  /** Once per client: mark down at once (dependants stop trusting it), then reconnect. */
  private lost(client: Client, err: Error | null): void {
    if (this.dead.has(client)) {
      return;
    }
    this.dead.add(client);
    if (this.client === client) {
      this.client = null;
    }
    this.setUp(false);
    if (this.stopped) {
      return;
    }
    this.logger.warn(
      { err: err?.message ?? 'connection ended', retry_in_ms: this.backoffMs },
      'LISTEN connection lost; reconnecting',
    );
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => void this.connect(), this.backoffMs);
    this.reconnectTimer.unref();
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
  }

  private async heartbeat(): Promise<void> {
    const client = this.client;
    if (!client) {
      return;
    }
    try {
      await client.query('SELECT 1');
    } catch (err) {
      this.lost(client, err as Error);
      void client.end().catch(() => undefined);
    }
  }

  private setUp(up: boolean): void {
    if (this.up === up) {
      return;
    }
    this.up = up;
    for (const handler of this.stateHandlers) {
      handler(up);
    }
  }
}
