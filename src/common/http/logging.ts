import type { Params } from 'nestjs-pino';

import type { AppConfig } from '../../config/app.config';
import { assignRequestId } from './request-id';

/**
 * Structured JSON request logs. Credentials, signatures, cookies and bodies are never logged:
 * only method, path, status, timing, request id and idempotency key.
 */
export function loggerOptions(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      genReqId: (req, res) => assignRequestId(req as never, res as never),
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers.signature',
          'res.headers["set-cookie"]',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: {
          method: string;
          url: string;
          id: string;
          headers: Record<string, string>;
        }) => ({
          method: req.method,
          path: req.url.split('?')[0],
          request_id: req.id,
          idempotency_key: req.headers['idempotency-key'],
          user_agent: req.headers['user-agent'],
        }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      },
      autoLogging: { ignore: (req) => req.url === '/health' },
    },
  };
}
