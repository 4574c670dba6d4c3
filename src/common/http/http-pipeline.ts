import cookieParser from 'cookie-parser';
import express, { NextFunction, Request, Response } from 'express';

import { bodyParserError } from '../errors/all-exceptions.filter';
import { AppError } from '../errors/app-error';
import { requireJsonBody, requireJsonObject } from './content-type';
import { refuseDeepJsonText, refuseHostileFormText, refuseHostileInput } from './hostile-input';
import { idempotencyKeyEchoMiddleware, requestIdMiddleware } from './request-id';

export type RawBodyRequest = Request & { rawBody?: Buffer };

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

const JSON_APIS = ['/acp', '/v1'];

/**
 * Hands parser failures on as AppErrors. Passed on raw, Nest's error layer would turn the JSON
 * SyntaxError into a generic BadRequestException and the client would get code `invalid` with
 * the V8 parser message instead of `invalid_json`.
 */
function mappingParserErrors(parser: Middleware): Middleware {
  return (req, res, next) =>
    parser(req, res, (err?: unknown) => {
      if (err === undefined || err === null) {
        return next();
      }
      // Our own refusals (the depth check in verify) pass as they are, code and param intact.
      next(err instanceof AppError ? err : (bodyParserError(err, req) ?? err));
    });
}

/**
 * Middleware in the order every request meets it. Registered through Nest's MiddlewareConsumer
 * (not app.use) so parser errors reach the global exception filter and get our error bodies.
 * The raw bytes are kept on req.rawBody for HMAC checks over exactly what was sent. The last
 * step refuses hostile input (hostile-input.ts) before any guard or handler sees the request.
 */
export function httpPipeline(bodyLimit: string): Middleware[] {
  return [
    requestIdMiddleware,
    idempotencyKeyEchoMiddleware,
    requireJsonBody(JSON_APIS),
    mappingParserErrors(
      express.json({
        limit: bodyLimit,
        type: ['application/json', 'application/*+json'],
        strict: true,
        verify: (req, _res, buf, encoding) => {
          (req as RawBodyRequest).rawBody = buf;
          // Before JSON.parse: a body nested thousands deep never reaches the parser or our code.
          refuseDeepJsonText(buf, encoding);
        },
      }),
    ),
    requireJsonObject(JSON_APIS),
    mappingParserErrors(
      express.urlencoded({
        extended: false,
        limit: '64kb',
        verify: (_req, _res, buf) => refuseHostileFormText(buf),
      }),
    ),
    cookieParser(),
    refuseHostileInput,
  ];
}
