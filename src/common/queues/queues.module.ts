import { BullModule } from '@nestjs/bull';
import { Global, Module } from '@nestjs/common';

import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { QUEUES } from './queues';

function redisOptions(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    password: u.password || undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
  };
}

/** Bull on Redis. Queue names are registered here; processors live in their owning modules. */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        redis: redisOptions(config.redisUrl),
        prefix: config.queuePrefix,
      }),
    }),
    BullModule.registerQueue(
      { name: QUEUES.maintenance },
      { name: QUEUES.approvals },
      { name: QUEUES.webhooks },
      { name: QUEUES.payments },
      { name: QUEUES.recurring },
    ),
  ],
  exports: [BullModule],
})
export class QueuesModule {}

export { redisOptions };
