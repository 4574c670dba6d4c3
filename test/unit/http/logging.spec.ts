import { loggerOptions } from '../../../src/common/http/logging';
import { loadConfig } from '../../../src/config/app.config';

describe('request log options', () => {
  const http = loggerOptions(loadConfig({})).pinoHttp as {
    redact: { paths: string[] };
    serializers: { req: (r: unknown) => Record<string, unknown> };
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
    expect(JSON.stringify(line)).not.toMatch(/secret|svc_session|sig"/);
  });

  it('redacts auth headers even if a serializer is bypassed', () => {
    expect(http.redact.paths).toEqual(
      expect.arrayContaining([
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers.signature',
      ]),
    );
  });
});
