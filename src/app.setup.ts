import { ValidationPipe } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { join } from 'node:path';
import { Logger } from 'nestjs-pino';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { validationErrorFactory } from './common/errors/validation';
import { registerViewHelpers } from './views/view-helpers';

/** Everything main.ts, tests and the OpenAPI script share: pipes, filter, views, docs. */
export function configureApp(app: NestExpressApplication, opts: { quietLogs?: boolean } = {}): OpenAPIObject {
  if (!opts.quietLogs) {
    app.useLogger(app.get(Logger));
  }
  app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      exceptionFactory: validationErrorFactory,
      stopAtFirstError: true,
    }),
  );
  app.setBaseViewsDir(join(__dirname, '..', 'views'));
  app.setViewEngine('hbs');
  registerViewHelpers();
  app.enableShutdownHooks();
  const document = SwaggerModule.createDocument(app, openApiConfig());
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json' });
  return document;
}

function openApiConfig() {
  return new DocumentBuilder()
    .setTitle('Agent commerce and payments service')
    .setDescription(
      'ACP 2026-04-17 merchant checkout and delegate_payment over UPI mandates, seller surface and signed receipts. ' +
        'Protocol routes (/acp) take a protocol key and speak flat ACP errors; /v1 routes take an API key or an agent ' +
        'credential and answer errors as {"error":{type,code,message,param,request_id}}.',
    )
    .setVersion('2026-04-17')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'sk_test_… workspace API key' }, 'apiKey')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'agc_… agent credential' }, 'agentCredential')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'acpk_… protocol key, role merchant' }, 'merchantProtocolKey')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'acpk_… protocol key, role buyer' }, 'buyerProtocolKey')
    .build();
}
