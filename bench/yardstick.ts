// Child process of `npm run bench:prod`: a yardstick in its own process, compiled to JavaScript
// and run by plain node like `node dist/main.js` (bench/production.ts). A bare NestJS app
// (Express, no middleware, guards, interceptors or rate limiter) with one route, POST /baseline,
// doing BEGIN; INSERT; COMMIT on one pooled connection:
//   YARDSTICK_KIND=raw      through a `pg` Pool (the driver alone),
//   YARDSTICK_KIND=typeorm  through a TypeORM DataSource (as bench/baseline.ts does in-process).
// It imports nothing from the repository, so the compiled file runs on its own. Answers
// {type: 'rss'} with its resident set size; exits when the orchestrator goes.
import 'reflect-metadata';

import { Controller, HttpCode, Inject, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';

const INSERT = 'INSERT INTO %TABLE% (note) VALUES ($1) RETURNING id';

interface Inserter {
  insert(): Promise<string>;
  close(): Promise<void>;
}

const INSERTER = Symbol('INSERTER');

@Controller('baseline')
class YardstickController {
  constructor(@Inject(INSERTER) private readonly db: Inserter) {}

  @Post()
  @HttpCode(201)
  async insert(): Promise<{ id: string }> {
    return { id: await this.db.insert() };
  }
}

function rawInserter(url: string, max: number, sql: string): Inserter {
  const pool = new Pool({ connectionString: url, max });
  return {
    async insert() {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query<{ id: string }>(sql, ['raw']);
        await client.query('COMMIT');
        return String(rows[0].id);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

async function typeormInserter(url: string, max: number, sql: string): Promise<Inserter> {
  const ds = await new DataSource({ type: 'postgres', url, poolSize: max }).initialize();
  return {
    async insert() {
      const rows = await ds.transaction((m) => m.query<{ id: string }[]>(sql, ['typeorm']));
      return String(rows[0].id);
    },
    close: () => ds.destroy(),
  };
}

async function main(): Promise<void> {
  const kind = process.env.YARDSTICK_KIND;
  const url = process.env.DATABASE_URL ?? '';
  const max = Number(process.env.DATABASE_POOL_MAX ?? 20);
  const sql = INSERT.replace('%TABLE%', process.env.YARDSTICK_TABLE ?? 'bench_raw_baseline');
  const db = kind === 'typeorm' ? await typeormInserter(url, max, sql) : rawInserter(url, max, sql);
  await db.insert(); // the table is there and the pool works before the orchestrator is told

  @Module({ controllers: [YardstickController], providers: [{ provide: INSERTER, useValue: db }] })
  class YardstickModule {}

  const app = await NestFactory.create<NestExpressApplication>(YardstickModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'rss') {
      process.send?.({ type: 'rss', rss: process.memoryUsage().rss });
    }
  });
  process.on('disconnect', () => {
    void app
      .close()
      .then(() => db.close())
      .finally(() => process.exit(0));
  });
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}` });
}

main().catch((err: unknown) => {
  process.send?.({ type: 'error', error: (err as Error).stack ?? String(err) });
  process.exit(1);
});
