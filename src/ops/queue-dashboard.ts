import { createBullBoard } from '@bull-board/api';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import type { IServerAdapter } from '@bull-board/api/dist/types';
import { ExpressAdapter } from '@bull-board/express';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Express, Request, Response } from 'express';

import { allQueues } from '../common/queues/all-queues';
import { hiddenPage } from './operator.guard';

/** Where the queue dashboard lives (behind OperatorGuard). */
export const QUEUE_DASHBOARD_PATH = '/app/ops/queues';

/**
 * Dashboard actions refused here (403): adding jobs, rewriting a job's data, emptying or
 * obliterating a queue. They have no on-call use, and the last two would silently drop work the
 * sweeps only partly restore. What stays allowed (retry, promote, clean, remove, pause, resume)
 * cannot make the service break its own rules: every processor re-reads Postgres and does nothing
 * for a stale or early job (an approval is expired only when due, a webhook attempt only when its
 * delivery is still waiting for it), and the sweeps re-enqueue what a removed job would have done.
 */
const REFUSED: readonly [method: string, path: RegExp][] = [
  ['POST', /^\/api\/queues\/[^/]+\/add\/?$/],
  ['PATCH', /^\/api\/queues\/[^/]+\/[^/]+\/update-data\/?$/],
  ['PUT', /^\/api\/queues\/[^/]+\/empty\/?$/],
  ['PUT', /^\/api\/queues\/[^/]+\/obliterate\/?$/],
];

/**
 * Bull Board (@bull-board/api + @bull-board/express) over every registered queue. Its Express
 * app is served by QueueDashboardController, after OperatorGuard, with the request's URL made
 * relative to QUEUE_DASHBOARD_PATH as if the app were mounted there; its HTML, API
 * (`/api/queues`, …) and static files all go through the same guard.
 */
@Injectable()
export class QueueDashboard implements OnModuleInit {
  private board: Express | null = null;

  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    const adapter = new ExpressAdapter();
    adapter.setBasePath(QUEUE_DASHBOARD_PATH);
    createBullBoard({
      queues: allQueues(this.moduleRef).map((q) => new BullAdapter(q)),
      // @bull-board/express pins its own patch release of @bull-board/api, whose private fields
      // make the otherwise identical types distinct to TypeScript; at runtime it is duck-typed.
      serverAdapter: adapter as unknown as IServerAdapter,
      options: { uiConfig: { boardTitle: 'Queues' } },
    });
    this.board = adapter.getRouter() as Express;
    this.board.disable('x-powered-by');
  }

  /** The request's path below QUEUE_DASHBOARD_PATH, with its query (`/api/queues?…`, or `/`). */
  subUrl(req: Request): string {
    const rest = req.originalUrl.slice(QUEUE_DASHBOARD_PATH.length);
    return rest.startsWith('/') ? rest : `/${rest}`;
  }

  refuses(method: string, subUrl: string): boolean {
    const path = subUrl.split('?')[0];
    return REFUSED.some(([m, p]) => m === method && p.test(path));
  }

  /**
   * Hands the request to Bull Board's Express app; resolves when the response is finished. A
   * path the board does not serve rejects with the app's 404 page. Express swaps the request's
   * and response's prototypes for the board's while it runs; they are put back afterwards.
   */
  handle(req: Request, res: Response): Promise<void> {
    const board = this.board;
    if (!board) {
      return Promise.reject(new Error('queue dashboard used before module init'));
    }
    const saved = {
      url: req.url,
      baseUrl: req.baseUrl,
      reqProto: Object.getPrototypeOf(req) as object,
      resProto: Object.getPrototypeOf(res) as object,
    };
    const restore = () => {
      req.url = saved.url;
      req.baseUrl = saved.baseUrl;
      Object.setPrototypeOf(req, saved.reqProto);
      Object.setPrototypeOf(res, saved.resProto);
    };
    return new Promise<void>((resolve, reject) => {
      const finished = () => {
        restore();
        resolve();
      };
      res.once('finish', finished);
      res.once('close', finished);
      req.url = this.subUrl(req);
      req.baseUrl = QUEUE_DASHBOARD_PATH;
      board(req, res, (err?: unknown) => {
        res.removeListener('finish', finished);
        res.removeListener('close', finished);
        restore();
        reject(err instanceof Error ? err : hiddenPage());
      });
    });
  }
}
