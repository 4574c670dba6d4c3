import { join } from 'node:path';

import { ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Request } from 'express';
import { Logger } from 'nestjs-pino';

import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { validationErrorFactory } from './common/errors/validation';
import { securityHeaders } from './common/http/security-headers';
import { APP_CONFIG, AppConfig } from './config/app.config';
import { buildOpenApiDocument, originOf, servedContract } from './openapi/openapi.document';
import { grievanceContact } from './personal-data/grievance';
import { withBootChatterAtDebug } from './startup-banner';
import { isUcpPath, UcpExceptionFilter } from './ucp/ucp-errors';
import { registerViewHelpers } from './views/view-helpers';

/** The global ValidationPipe's options; the MCP checkout tools validate payloads with the same pipe. */
export const VALIDATION_PIPE_OPTIONS: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  transformOptions: { enableImplicitConversion: false },
  exceptionFactory: validationErrorFactory,
  stopAtFirstError: true,
};

/** Everything main.ts, tests and the OpenAPI script share: pipes, filter, views, docs. */
export function configureApp(
  app: NestExpressApplication,
  opts: { quietLogs?: boolean } = {},
): OpenAPIObject {
  if (!opts.quietLogs) {
    // "Mapped {…} route" and the rest of Nest's start-up lines at debug; main.ts logs one banner.
    app.useLogger(withBootChatterAtDebug(app.get(Logger)));
  }
  app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  // First of all, so every response carries them: pages, API, errors, /docs and static files.
  app.use(securityHeaders({ live: app.get<AppConfig>(APP_CONFIG).mode === 'live' }));
  app.useGlobalFilters(
    new AllExceptionsFilter([{ matches: isUcpPath, filter: new UcpExceptionFilter() }]),
  );
  app.useGlobalPipes(new ValidationPipe(VALIDATION_PIPE_OPTIONS));
  app.setBaseViewsDir(join(__dirname, '..', 'views'));
  // Same-origin stylesheet of the pages (the CSP refuses inline styles).
  app.useStaticAssets(join(__dirname, '..', 'views', 'assets'), {
    prefix: '/app/assets/',
    index: false,
    maxAge: '1h',
  });
  app.setViewEngine('hbs');
  // Every notice and the legal pages name the grievance officer (docs/personal-data.md).
  app.setLocal('grievance', grievanceContact(app.get<AppConfig>(APP_CONFIG)));
  registerViewHelpers();
  app.enableShutdownHooks();
  const document = buildOpenApiDocument(app);
  const config = app.get<AppConfig>(APP_CONFIG);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    // Servers: this deployment, read per request (BASE_URL; in sandbox also the page's own origin).
    patchDocumentOnRequest: <TRequest>(req: TRequest, _res: unknown, doc: OpenAPIObject) => {
      const r = req as Request;
      return servedContract(doc, config, originOf(r.protocol, r.get('host')));
    },
  });
  return document;
}
