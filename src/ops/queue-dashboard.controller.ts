import { All, Controller, Inject, Req, Res, UseGuards } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

import { AuditLog } from '../common/audit';
import { AppError } from '../common/errors/app-error';
import { queueDashboardCsp } from '../common/http/security-headers';
import { CredentialRateLimitGuard } from '../common/rate-limit/credential-rate-limit.guard';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { AppController, CurrentPerson } from '../web/current-person.decorator';
import type { SignedInPerson } from '../web/signed-in-person';
import { OperatorGuard } from './operator.guard';
import { QueueDashboard } from './queue-dashboard';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * GET|PUT|… /app/ops/queues[/…]: the queue dashboard (Bull Board) for operators only
 * (OperatorGuard: anyone else gets the app's 404 page). Counted against the operator's session
 * rate limit; every action (unsafe method) is written to the audit log of the operator's
 * workspace (`ops.queue_action`) before it runs. The board's page needs a slightly looser
 * Content-Security-Policy (queueDashboardCsp), set here, after the guard, so only operators ever
 * see it. HTML errors, no OpenAPI entry (AppController).
 */
@AppController()
@UseGuards(OperatorGuard, CredentialRateLimitGuard)
@Controller('app/ops/queues')
export class QueueDashboardController {
  private readonly csp: (req: Request, res: Response, next: NextFunction) => void;

  constructor(
    private readonly dashboard: QueueDashboard,
    private readonly audit: AuditLog,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.csp = queueDashboardCsp({ live: config.mode === 'live' });
  }

  @All()
  root(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentPerson() person: SignedInPerson,
  ): Promise<void> {
    return this.serve(req, res, person);
  }

  @All('*path')
  rest(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentPerson() person: SignedInPerson,
  ): Promise<void> {
    return this.serve(req, res, person);
  }

  private async serve(req: Request, res: Response, person: SignedInPerson): Promise<void> {
    const subUrl = this.dashboard.subUrl(req);
    if (this.dashboard.refuses(req.method, subUrl)) {
      throw new AppError(
        403,
        'invalid_request',
        'operation_not_allowed',
        'This queue operation is not available here.',
      );
    }
    if (!SAFE.has(req.method)) {
      await this.audit.record(
        person.workspaceId,
        { type: 'person', id: person.personId },
        'ops.queue_action',
        null,
        { method: req.method, path: subUrl.split('?')[0] },
      );
    }
    res.setHeader('Cache-Control', 'no-store');
    this.csp(req, res, () => undefined);
    await this.dashboard.handle(req, res);
  }
}
