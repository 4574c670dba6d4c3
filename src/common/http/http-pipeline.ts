import cookieParser from 'cookie-parser';
import express, { NextFunction, Request, Response } from 'express';

import { bodyParserError } from '../errors/all-exceptions.filter';
import { AppError } from '../errors/app-error';
import { refuseOversizedContentLength, ROUTE_BODY_LIMITS, routeBodyLimitOf } from './body-limits';
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

function jsonParser(limit: string | number): Middleware {
  return mappingParserErrors(
    express.json({
      limit,
      type: ['application/json', 'application/*+json'],
      strict: true,
      verify: (req, _res, buf, encoding) => {
        (req as RawBodyRequest).rawBody = buf;
        // Before JSON.parse: a body nested thousands deep never reaches the parser or our code.
        refuseDeepJsonText(buf, encoding);
      },
    }),
  );
}

/**
 * The JSON parser with the route's limit: BODY_LIMIT, or the larger limit of the few routes in
 * body-limits.ts (the forex document upload), which refuse a larger Content-Length up front.
 */
function jsonBodies(bodyLimit: string): Middleware {
  const standard = jsonParser(bodyLimit);
  const special = new Map(ROUTE_BODY_LIMITS.map((r) => [r, jsonParser(r.limitBytes)]));
  return (req, res, next) => {
    const route = routeBodyLimitOf(req);
    const parser = route ? special.get(route) : undefined;
    return (parser ?? standard)(req, res, next);
  };
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
    refuseOversizedContentLength,
    requireJsonBody(JSON_APIS),
    jsonBodies(bodyLimit),
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
