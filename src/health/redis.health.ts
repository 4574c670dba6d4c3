import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { Queue } from 'bull';

import { QUEUES } from '../common/queues/queues';
import { CheckTimeout, withinTimeout } from './check-timeout';

/**
 * Redis for readiness: the Bull client answers PING within `timeout`. Down with the fixed words
 * `unreachable` or `timeout`, never the client's error (the probe is public).
 */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    @InjectQueue(QUEUES.maintenance) private readonly queue: Queue,
  ) {}

  async pingCheck<const Key extends string>(
    key: Key,
    { timeout }: { timeout: number },
  ): Promise<HealthIndicatorResult<Key>> {
    const check = this.health.check(key);
    const client = this.queue.client;
    // A disconnected ioredis client would only queue the PING until Redis returns: answer now.
    if (client.status !== 'ready') {
      return check.down({ message: 'unreachable' });
    }
    try {
      await withinTimeout(client.ping(), timeout);
    } catch (err) {
      return check.down({ message: err instanceof CheckTimeout ? 'timeout' : 'unreachable' });
    }
    return check.up();
  }
}
