import cookieParser from 'cookie-parser';
import express, { NextFunction, Request, Response } from 'express';

import { bodyParserError } from '../errors/all-exceptions.filter';
import { AppError } from '../errors/app-error';
import { languageMiddleware } from '../i18n/language';
import { refuseIdentityNumbers } from '../identity/identity-edge';
import { refuseOversizedContentLength, ROUTE_BODY_LIMITS, routeBodyLimitOf } from './body-limits';
import { fullPathOf, requireJsonBody, requireJsonObject } from './content-type';
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
 * Routes whose JSON body is only bytes (req.rawBody, req.body left undefined) until their handler
 * has checked a MAC over them: the gateway's webhook verifies X-Gateway-Signature first, then
 * parses, and answers a signed body that is not a readable event itself (gateway-events.schema.ts)
 * rather than with a parser error the gateway would retry for a day.
 */
const RAW_JSON_ROUTES: readonly { method: string; path: RegExp }[] = [
  { method: 'POST', path: /^\/v1\/webhooks\/gateway\/?$/i },
];

function isRawJsonRoute(req: Request): boolean {
  const path = fullPathOf(req);
  return RAW_JSON_ROUTES.some((r) => r.method === req.method && r.path.test(path));
}

/**
 * Identity numbers (Aadhaar anywhere, a PAN outside the forex `pan` field) are refused after the
 * hostile-input check (identity-edge.ts), on every route but those above: a signed gateway event
 * is not personal input, and a 4xx would only make the gateway retry it for a day.
 */
function refuseIdentityNumbersExceptRaw(req: Request, res: Response, next: NextFunction): void {
  if (isRawJsonRoute(req)) {
    return next();
  }
  refuseIdentityNumbers(req, res, next);
}

function rawJsonParser(limit: string): Middleware {
  const parser = mappingParserErrors(
    express.raw({ limit, type: ['application/json', 'application/*+json'] }),
  );
  return (req, res, next) =>
    parser(req, res, (err?: unknown) => {
      const body: unknown = req.body;
      if (Buffer.isBuffer(body)) {
        (req as RawBodyRequest).rawBody = body;
        req.body = undefined;
      }
      next(err);
    });
}

/**
 * The JSON parser with the route's limit: BODY_LIMIT, or the larger limit of the few routes in
 * body-limits.ts (the forex document upload), which refuse a larger Content-Length up front.
 */
function jsonBodies(bodyLimit: string): Middleware {
  const standard = jsonParser(bodyLimit);
  const special = new Map(ROUTE_BODY_LIMITS.map((r) => [r, jsonParser(r.limitBytes)]));
  const raw = rawJsonParser(bodyLimit);
  return (req, res, next) => {
    if (isRawJsonRoute(req)) {
      return raw(req, res, next);
    }
    const route = routeBodyLimitOf(req);
    const parser = route ? special.get(route) : undefined;
    return (parser ?? standard)(req, res, next);
  };
}

/**
 * Runs the steps in order as one middleware: each step's next() starts the following one, and an
 * error, passed to next() or thrown, skips the rest and goes on as Express would pass it on. One
 * router entry instead of one per step: Express matches each entry's path against every request,
 * and Nest wraps each registered middleware in its own proxy (bench/README.md "One router entry
 * for the pipeline").
 */
export function inOrder(steps: readonly Middleware[]): Middleware {
  return (req, res, done) => {
    let at = 0;
    const next = (err?: unknown): void => {
      if (err !== undefined && err !== null) {
        return done(err);
      }
      const step = steps[at++];
      if (step === undefined) {
        return done();
      }
      try {
        step(req, res, next);
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}

/**
 * The middleware every request meets: its steps in the order a request meets them, run as one
 * (inOrder). Registered through Nest's MiddlewareConsumer (not app.use) so parser errors reach the
 * global exception filter and get our error bodies. The raw bytes are kept on req.rawBody for HMAC
 * checks over exactly what was sent. The last steps refuse hostile input (hostile-input.ts) and
 * identity numbers (identity-edge.ts) before any guard or handler sees the request.
 */
export function httpPipeline(bodyLimit: string): Middleware {
  return inOrder([
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
    // Pages, and errors shown as pages, speak the person's language (docs/languages.md).
    languageMiddleware,
    refuseHostileInput,
    refuseIdentityNumbersExceptRaw,
  ]);
}
