import { PassThrough } from 'node:stream';

import { Controller, Get, INestApplication, Logger as NestLogger, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Logger, LoggerModule } from 'nestjs-pino';
import request from 'supertest';

import { loggerOptions, pinoHttpOptions, QUIET_PATHS } from '../../../src/common/http/logging';
import { loadConfig } from '../../../src/config/app.config';

const SECRETS = {
  authorization: 'Bearer acpk_secret_bearer_value',
  cookie: 'svc_session=session_secret_cookie_value',
  signature: 'sig_secret_signature_value',
  csrf: 'csrf_secret_token_value',
  query: 'query_secret_token_value',
};
const SECRET_PATTERN = /secret/;

describe('request log options', () => {
  const http = pinoHttpOptions(loadConfig({})) as unknown as {
    redact: { paths: string[] };
    serializers: { req: (r: unknown) => Record<string, unknown> };
    quietReqLogger: boolean;
    customAttributeKeys: { reqId: string };
  };

  it('logs method, path, request id and idempotency key, and never credentials, cookies, signatures or bodies', () => {
    const line = http.serializers.req({
      method: 'POST',
      url: '/acp/checkout_sessions?x=1',
      id: 'req_1',
      headers: {
        authorization: 'Bearer acpk_secret',
        cookie: 'svc_session=abc',
        signature: 'sig',
        'x-csrf-token': 'csrf',
        'idempotency-key': 'k1',
        'user-agent': 'agent/1',
      },
      body: { token: 'vt_secret' },
    });
    expect(line).toEqual({
      method: 'POST',
      path: '/acp/checkout_sessions',
      request_id: 'req_1',
      idempotency_key: 'k1',
      user_agent: 'agent/1',
    });
    expect(JSON.stringify(line)).not.toMatch(/secret|svc_session|sig"|csrf/);
  });

  it('redacts auth headers even if a serializer is bypassed', () => {
    expect(http.redact.paths).toEqual(
      expect.arrayContaining([
        'req.headers.authorization',
        'req.headers["proxy-authorization"]',
        'req.headers.cookie',
        'req.headers.signature',
        'req.headers["x-csrf-token"]',
        'res.headers["set-cookie"]',
      ]),
    );
  });

  it('binds the request id as `request_id` on every line of a request', () => {
    expect(http.quietReqLogger).toBe(true);
    expect(http.customAttributeKeys.reqId).toBe('request_id');
  });
});

@Controller('probe')
class LoggingProbeController {
  private readonly logger = new NestLogger('Probe');

  @Get('log')
  log(): { ok: true } {
    this.logger.log('inside the handler');
    this.logger.warn({ step: 2 }, 'a second line');
    return { ok: true };
  }
}

/**
 * The real logger wiring (nestjs-pino with our options) around a small Nest app, writing into a
 * stream the test reads: the request completion line and every Nest Logger call made while the
 * request runs.
 */
async function appLoggingTo(pretty: boolean): Promise<{
  app: INestApplication;
  lines: () => Promise<string[]>;
}> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const config = { ...loadConfig({ LOG_LEVEL: 'info' }), logPretty: pretty };
  @Module({
    imports: [LoggerModule.forRoot(loggerOptions(config, out))],
    controllers: [LoggingProbeController],
  })
  class LoggingProbeModule {}
  const moduleRef = await Test.createTestingModule({ imports: [LoggingProbeModule] }).compile();
  const app = moduleRef.createNestApplication({ bufferLogs: true });
  app.useLogger(app.get(Logger));
  await app.init();
  return {
    app,
    lines: async () => {
      await new Promise((r) => setTimeout(r, 50)); // pino-pretty writes through a transform stream
      return text.split('\n').filter((l) => l.length > 0);
    },
  };
}

async function sendWithSecrets(app: INestApplication, path = '/probe/log') {
  return request(app.getHttpServer())
    .get(`${path}?token=${SECRETS.query}`)
    .set({
      Authorization: SECRETS.authorization,
      Cookie: SECRETS.cookie,
      Signature: SECRETS.signature,
      'X-CSRF-Token': SECRETS.csrf,
      'Idempotency-Key': 'idem-1',
    })
    .expect(200);
}

describe('request logs, JSON (LOG_PRETTY off)', () => {
  let app: INestApplication;
  let lines: () => Promise<string[]>;

  beforeAll(async () => {
    ({ app, lines } = await appLoggingTo(false));
  });
  afterAll(() => app.close());

  it('writes JSON lines, each line of the request carrying its request_id, and no secret', async () => {
    const res = await sendWithSecrets(app);
    const requestId = res.headers['request-id'];
    expect(requestId).toMatch(/^req_/);
    const mine = (await lines())
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.request_id !== undefined);
    expect(mine.map((l) => l.msg)).toEqual([
      'inside the handler',
      'a second line',
      'request completed',
    ]);
    for (const line of mine) {
      expect(line.request_id).toBe(requestId);
    }
    const done = mine[2];
    expect(done.req).toEqual({
      method: 'GET',
      path: '/probe/log',
      request_id: requestId,
      idempotency_key: 'idem-1',
    });
    expect(done.res).toEqual({ status: 200 });
    expect(typeof done.responseTime).toBe('number');
    expect(mine[1]).toMatchObject({ step: 2, context: 'Probe' });
    expect((await lines()).join('\n')).not.toMatch(SECRET_PATTERN);
  });

  it('takes a client-sent Request-Id as the request_id', async () => {
    await request(app.getHttpServer())
      .get('/probe/log')
      .set('Request-Id', 'client-id-42')
      .expect(200);
    const mine = (await lines())
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.request_id === 'client-id-42');
    expect(mine).toHaveLength(3);
  });

  it('writes no completion line for probes and scrapes', async () => {
    expect([...QUIET_PATHS].sort()).toEqual([
      '/health',
      '/health/live',
      '/health/ready',
      '/metrics',
    ]);
    const before = (await lines()).length;
    for (const path of QUIET_PATHS) {
      await request(app.getHttpServer()).get(`${path}?x=1`).expect(404);
    }
    expect((await lines()).length).toBe(before);
  });
});

describe('request logs, readable (LOG_PRETTY on)', () => {
  let app: INestApplication;
  let lines: () => Promise<string[]>;

  beforeAll(async () => {
    ({ app, lines } = await appLoggingTo(true));
  });
  afterAll(() => app.close());

  it('writes one human-readable line per log call, with the request id, and no secret', async () => {
    const res = await sendWithSecrets(app);
    const id = res.headers['request-id'];
    const mine = (await lines()).filter((l) => l.includes(`[${id}]`));
    expect(mine).toHaveLength(3);
    const time = String.raw`\d{2}:\d{2}:\d{2}\.\d{3}`;
    expect(mine[0]).toMatch(
      new RegExp(`^\\[${time}\\] INFO: \\[${id}\\] \\(Probe\\) inside the handler$`),
    );
    expect(mine[1]).toMatch(
      new RegExp(`^\\[${time}\\] WARN: \\[${id}\\] \\(Probe\\) a second line \\{"step":2\\}$`),
    );
    expect(mine[2]).toMatch(
      new RegExp(
        `^\\[${time}\\] INFO: \\[${id}\\] request completed GET /probe/log → 200 in \\d+ ms$`,
      ),
    );
    const all = (await lines()).join('\n');
    expect(all).not.toMatch(SECRET_PATTERN);
    expect(all).not.toMatch(/^\{/m);
  });
});

describe('LOG_PRETTY default', () => {
  it('is on for a terminal, off otherwise, and off in live mode unless asked for', () => {
    const live = {
      MODE: 'live',
      BASE_URL: 'https://pay.example.in',
      SIGNING_PRIVATE_KEY: 'x',
      WEBHOOK_SECRET_KEY: 'a'.repeat(64),
    };
    expect(loadConfig({}, { stdoutIsTty: true }).logPretty).toBe(true);
    expect(loadConfig({}, { stdoutIsTty: false }).logPretty).toBe(false);
    expect(loadConfig(live, { stdoutIsTty: true }).logPretty).toBe(false);
    expect(loadConfig({ ...live, LOG_PRETTY: 'true' }, { stdoutIsTty: false }).logPretty).toBe(
      true,
    );
    expect(loadConfig({ LOG_PRETTY: 'false' }, { stdoutIsTty: true }).logPretty).toBe(false);
    expect(() => loadConfig({ LOG_PRETTY: 'yes' })).toThrow('LOG_PRETTY must be true or false');
  });
});
