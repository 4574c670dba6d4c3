import cookieParser from 'cookie-parser';
import express, { NextFunction, Request, Response } from 'express';
import { requireJsonBody } from './content-type';
import { requestIdMiddleware } from './request-id';

export type RawBodyRequest = Request & { rawBody?: Buffer };

/**
 * Middleware in the order every request meets it. Registered through Nest's MiddlewareConsumer
 * (not app.use) so parser errors reach the global exception filter and get our error bodies.
 * The raw bytes are kept on req.rawBody for HMAC checks over exactly what was sent.
 */
export function httpPipeline(bodyLimit: string): ((req: Request, res: Response, next: NextFunction) => void)[] {
  return [
    requestIdMiddleware,
    requireJsonBody(['/acp', '/v1']),
    express.json({
      limit: bodyLimit,
      type: ['application/json', 'application/*+json'],
      strict: true,
      verify: (req, _res, buf) => {
        (req as RawBodyRequest).rawBody = buf;
      },
    }),
    express.urlencoded({ extended: false, limit: '64kb' }),
    cookieParser(),
  ];
}
