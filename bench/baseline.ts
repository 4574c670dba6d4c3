// The yardstick of `npm run bench`: a bare NestJS route in the bench process that does one INSERT
// in a transaction through the app's own connection pool. It is a separate, minimal Nest
// application (no middleware, guards, interceptors or rate limiter), registered only by the bench,
// so the service's routes are measured against the least a request with a database write costs
// on this machine at that moment.
import { Controller, HttpCode, Inject, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';

import { BASELINE_TABLE } from './setup';

@Controller('baseline')
class BaselineController {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** BEGIN; INSERT …; COMMIT on one pooled connection. */
  @Post()
  @HttpCode(201)
  async insert(): Promise<{ id: string }> {
    const rows = await this.db.transaction((m) =>
      m.query<{ id: string }[]>(`INSERT INTO ${BASELINE_TABLE} (note) VALUES ($1) RETURNING id`, [
        'baseline',
      ]),
    );
    return { id: String(rows[0].id) };
  }
}

export interface BaselineApp {
  url: string;
  close(): Promise<void>;
}

/** Listens on a free port of this process, sharing `dataSource` (the app's pool). */
export async function startBaseline(dataSource: DataSource): Promise<BaselineApp> {
  @Module({
    controllers: [BaselineController],
    providers: [{ provide: DataSource, useValue: dataSource }],
  })
  class BaselineModule {}

  const app = await NestFactory.create<NestExpressApplication>(BaselineModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
