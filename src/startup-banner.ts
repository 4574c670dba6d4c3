import type { INestApplication, LoggerService } from '@nestjs/common';
import { Logger } from 'nestjs-pino';

import type { AppConfig } from './config/app.config';
import { metricsAccess } from './metrics/metrics-access';

/**
 * Nest's own start-up chatter, by logger context: "Starting Nest application", one
 * "X dependencies initialized" per module, one "Mapped {…} route" per route (~170), "successfully
 * started". main.ts logs them at debug; at info a person sees one banner (startupBanner) instead.
 */
export const NEST_BOOT_CONTEXTS: ReadonlySet<string> = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

function bootContext(params: unknown[]): boolean {
  const last = params[params.length - 1];
  return typeof last === 'string' && NEST_BOOT_CONTEXTS.has(last);
}

/** The logger with Nest's start-up chatter (NEST_BOOT_CONTEXTS) moved from info (`log`) to debug. */
export function withBootChatterAtDebug(logger: LoggerService): LoggerService {
  return {
    log: (message: unknown, ...params: unknown[]) =>
      bootContext(params) && logger.debug
        ? logger.debug(message, ...params)
        : logger.log(message, ...params),
    error: (message: unknown, ...params: unknown[]) => logger.error(message, ...params),
    warn: (message: unknown, ...params: unknown[]) => logger.warn(message, ...params),
    debug: (message: unknown, ...params: unknown[]) => logger.debug?.(message, ...params),
    verbose: (message: unknown, ...params: unknown[]) => logger.verbose?.(message, ...params),
    fatal: (message: unknown, ...params: unknown[]) =>
      logger.fatal ? logger.fatal(message, ...params) : logger.error(message, ...params),
    setLogLevels: (levels) => logger.setLogLevels?.(levels),
  };
}

/** What the banner says, as text for a person and as fields for a log search. */
export function startupBanner(config: AppConfig): { text: string; fields: Record<string, string> } {
  const access = metricsAccess(config);
  const metrics =
    access === 'open'
      ? `${config.baseUrl}/metrics (open)`
      : access === 'token'
        ? `${config.baseUrl}/metrics (Bearer METRICS_TOKEN)`
        : 'off (set METRICS_TOKEN to serve /metrics)';
  const fields = {
    mode: config.mode,
    rail: config.rail,
    api: config.baseUrl,
    app: config.appUrl,
    docs: `${config.baseUrl}/docs`,
    metrics,
  };
  const next =
    config.mode === 'live'
      ? ['Live mode: the sandbox is off; operations are in docs/operations.md.']
      : [
          'Next, in another shell:',
          '  npm run sandbox -- --env-file .env.sandbox   # a demo workspace; its credentials in .env.sandbox',
          '  source .env.sandbox                          # BASE, APP_URL, keys, sign-ins',
          '  then follow docs/try-it.md                   # every flow, block by block',
        ];
  const text = [
    `payments service (${config.mode}, rail ${config.rail}) listening on ${config.baseUrl}`,
    `  API      ${fields.api}`,
    `  App      ${fields.app}`,
    `  Docs     ${fields.docs}`,
    `  Metrics  ${metrics}`,
    ...next,
  ].join('\n');
  return { text, fields };
}

/**
 * The one info line of a start: the banner as its message (readable with LOG_PRETTY) and its
 * fields under `banner` (JSON logs). Logged through the app's logger, so LOG_LEVEL applies.
 */
export function announce(app: INestApplication, config: AppConfig): void {
  const { text, fields } = startupBanner(config);
  app.get(Logger).log({ banner: fields }, text, 'Startup');
}
