import { InjectQueue } from '@nestjs/bull';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Queue } from 'bull';
import type { Response } from 'express';
import { DataSource } from 'typeorm';

import { OUTAGE_RETRY_AFTER_SECONDS } from '../common/errors/outage';
import { QUEUES } from '../common/queues/queues';
import { APP_CONFIG, AppConfig } from '../config/app.config';

class HealthChecks {
  @ApiProperty({ enum: ['ok', 'down'] }) postgres: string;
  @ApiProperty({ enum: ['ok', 'down'] }) redis: string;
}

class HealthResponse {
  @ApiProperty({ enum: ['ok', 'degraded'] }) status: 'ok' | 'degraded';
  @ApiProperty({ enum: ['sandbox', 'test', 'live'] }) mode: string;
  @ApiProperty({ type: () => HealthChecks }) checks: {
    postgres: string;
    redis: string;
  };
}

async function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

@ApiTags('ops')
@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    @InjectQueue(QUEUES.maintenance) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'health',
    summary: 'Postgres and Redis reachability (503 when either is down)',
  })
  @ApiOkResponse({ type: HealthResponse })
  @ApiServiceUnavailableResponse({
    type: HealthResponse,
    description: 'degraded: Postgres or Redis is down (Retry-After)',
  })
  async health(@Res({ passthrough: true }) res: Response): Promise<HealthResponse> {
    const [postgres, redis] = await Promise.all([
      within(this.dataSource.query('SELECT 1'), 2000).then(
        () => 'ok',
        () => 'down',
      ),
      // A disconnected ioredis client would only queue the PING until Redis returns: answer now.
      this.queue.client.status !== 'ready'
        ? Promise.resolve('down')
        : within(this.queue.client.ping(), 2000).then(
            () => 'ok',
            () => 'down',
          ),
    ]);
    const status = postgres === 'ok' && redis === 'ok' ? 'ok' : 'degraded';
    res.status(status === 'ok' ? 200 : 503);
    res.setHeader('Cache-Control', 'no-store');
    if (status !== 'ok') {
      res.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
    }
    return { status, mode: this.config.mode, checks: { postgres, redis } };
  }
}
