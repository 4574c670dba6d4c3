import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http, { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { AppError } from '../../src/common/errors/app-error';
import { safeFetch, SafeFetchOptions } from '../../src/common/net/safe-fetch';
import { fetchDocumentFromUrl } from '../../src/documents/document-fetch';

/**
 * safeFetch against real listeners on this machine's loopback (docs/documents.md "Documents and outbound
 * fetches"). Every listener counts the TCP connections it accepts, so "refused" means that no
 * connection was even opened, not that a request failed afterwards.
 */

interface Listener {
  host: string;
  port: number;
  /** TCP connections accepted. */
  connections: number;
  requests: string[];
  /** Responses the server saw cut off by the client before it finished writing. */
  aborted: number;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, l: Listener) => void;

async function listen(server: Server, host: string): Promise<Listener> {
  const sockets = new Set<Socket>();
  const l: Listener = {
    host,
    port: 0,
    connections: 0,
    requests: [],
    aborted: 0,
    close: async () => {
      for (const s of sockets) {
        s.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', (s: Socket) => {
    l.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  l.port = (server.address() as AddressInfo).port;
  return l;
}

/** An HTTP listener that records requests and hands them to `handler`. */
async function httpListener(host: string, handler: Handler = (_q, res) => res.end('ok')) {
  const server = http.createServer();
  const l = await listen(server, host);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    l.requests.push(req.url ?? '');
    res.on('close', () => {
      if (!res.writableFinished) {
        l.aborted++;
      }
    });
    handler(req, res, l);
  });
  return l;
}

/** A bare TCP listener: counts connections, never answers. */
async function tcpListener(host: string): Promise<Listener> {
  return listen(createServer(), host);
}

const codeOf = async (
  p: Promise<unknown>,
): Promise<{ status: number; code: string; message: string }> => {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { status: e.status, code: e.code, message: e.message };
  }
  throw new Error('expected a refusal');
};

/** Loopback listeners are only reachable when the test admits them: http, any port, 127.0.0.1. */
const admitting = (extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions => ({
  maxBytes: 1_000,
  timeoutMs: 2_000,
  allowedProtocols: ['http:', 'https:'],
  allowNonDefaultPorts: true,
  allowList: ['127.0.0.1'],
  ...extra,
});

describe('safeFetch refuses private addresses without opening a connection', () => {
  let tcp: Listener;
  let tcp6: Listener;
  beforeAll(async () => {
    tcp = await tcpListener('127.0.0.1');
    tcp6 = await tcpListener('::1');
  });
  afterAll(async () => {
    await tcp.close();
    await tcp6.close();
  });
  afterEach(() => {
    expect(tcp.connections).toBe(0);
    expect(tcp6.connections).toBe(0);
  });

  it.each([
    ['https://127.0.0.1:%p/x', /127\.0\.0\.1 is a loopback address/],
    ['https://localhost:%p/x', /localhost: 127\.0\.0\.1 is a loopback address/],
    ['https://127.0.0.1.:%p/x', /loopback/],
    ['https://[::ffff:127.0.0.1]:%p/x', /loopback/],
    ['https://0x7f000001:%p/x', /loopback/],
    ['https://2130706433:%p/x', /loopback/],
  ])('%s is url_address_refused', async (template, message) => {
    const url = template.replace('%p', String(tcp.port));
    const err = await codeOf(
      safeFetch(url, {
        maxBytes: 100,
        timeoutMs: 2_000,
        allowNonDefaultPorts: true,
        param: '$.url',
      }),
    );
    expect(err).toMatchObject({ status: 400, code: 'url_address_refused' });
    expect(err.message).toMatch(message);
  });

  it('refuses ::1 too', async () => {
    const err = await codeOf(
      safeFetch(`https://[::1]:${tcp6.port}/x`, {
        maxBytes: 100,
        timeoutMs: 2_000,
        allowNonDefaultPorts: true,
      }),
    );
    expect(err).toMatchObject({
      code: 'url_address_refused',
      message: expect.stringMatching(/::1 is a loopback/),
    });
  });

  it('refuses http, other schemes and non-default ports before any lookup', async () => {
    const opts = { maxBytes: 100, timeoutMs: 2_000 };
    expect(await codeOf(safeFetch(`http://127.0.0.1:${tcp.port}/`, opts))).toMatchObject({
      status: 400,
      code: 'url_not_https',
    });
    expect(await codeOf(safeFetch('file:///etc/passwd', opts))).toMatchObject({
      code: 'url_not_https',
    });
    expect(await codeOf(safeFetch(`https://127.0.0.1:${tcp.port}/`, opts))).toMatchObject({
      code: 'url_port_refused',
    });
    expect(await codeOf(safeFetch('https://user:pw@example.com/', opts))).toMatchObject({
      code: 'url_invalid',
    });
    expect(await codeOf(safeFetch('not a url', opts))).toMatchObject({ code: 'url_invalid' });
  });

  it('never admits a metadata address, allow list or not', async () => {
    const err = await codeOf(
      safeFetch('http://169.254.169.254/latest/meta-data/', {
        ...admitting(),
        allowList: ['169.254.169.254'],
      }),
    );
    expect(err).toMatchObject({
      code: 'url_address_refused',
      message: expect.stringMatching(/metadata/),
    });
  });
});

describe('safeFetch with an admitted loopback listener', () => {
  let a: Listener;
  let b: Listener;
  let hits = 0;
  beforeAll(async () => {
    // B listens on another loopback address, which the allow list does not admit.
    b = await httpListener('127.0.0.2', (_req, res) => res.end('secret'));
    a = await httpListener('127.0.0.1', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://a');
      switch (url.pathname) {
        case '/ok':
          return res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7 body');
        case '/to-b':
          return res.writeHead(302, { location: `http://127.0.0.2:${b.port}/` }).end();
        case '/to-b-v6':
          return res.writeHead(307, { location: `http://[::1]:${b.port}/` }).end();
        case '/to-metadata':
          return res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
        case '/to-https':
          return res.writeHead(308, { location: `https://127.0.0.1:${a.port}/ok` }).end();
        case '/to-ftp':
          return res.writeHead(302, { location: 'ftp://127.0.0.1/' }).end();
        case '/hop': {
          const n = Number(url.searchParams.get('n'));
          return n > 0
            ? res.writeHead(303, { location: `/hop?n=${n - 1}` }).end()
            : res.end('landed');
        }
        case '/exact':
          return res.end(Buffer.alloc(Number(url.searchParams.get('n')), 0x61));
        case '/chunked': {
          // No Content-Length: the size is only known while streaming.
          res.writeHead(200, { 'transfer-encoding': 'chunked' });
          const n = Number(url.searchParams.get('n'));
          for (let i = 0; i < n; i += 100) {
            res.write(Buffer.alloc(Math.min(100, n - i), 0x62));
          }
          return res.end();
        }
        case '/lying-length':
          res.writeHead(200, { 'content-length': '5000000' });
          return res.write('x');
        case '/silent':
          hits++;
          return; // never answers
        case '/drip': {
          res.writeHead(200, { 'content-type': 'image/png' });
          const timer = setInterval(() => res.write('.'), 100);
          res.on('close', () => clearInterval(timer));
          return;
        }
        default:
          return res.writeHead(404).end('nope');
      }
    });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('fetches from an admitted address and reports status, headers and the final URL', async () => {
    const res = await safeFetch(`http://127.0.0.1:${a.port}/ok`, admitting());
    expect(res).toMatchObject({ status: 200, finalUrl: `http://127.0.0.1:${a.port}/ok` });
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.body.toString()).toBe('%PDF-1.7 body');
    const missing = await safeFetch(`http://127.0.0.1:${a.port}/missing`, admitting());
    expect(missing.status).toBe(404);
  });

  it('follows redirects by hand, up to maxRedirects', async () => {
    const res = await safeFetch(`http://127.0.0.1:${a.port}/hop?n=3`, admitting());
    expect(res).toMatchObject({ status: 200, finalUrl: `http://127.0.0.1:${a.port}/hop?n=0` });
    expect(res.body.toString()).toBe('landed');
    expect(
      await codeOf(safeFetch(`http://127.0.0.1:${a.port}/hop?n=4`, admitting())),
    ).toMatchObject({
      code: 'url_redirect_refused',
      message: expect.stringMatching(/more than 3 redirects/),
    });
    expect(
      await codeOf(safeFetch(`http://127.0.0.1:${a.port}/hop?n=1`, admitting({ maxRedirects: 0 }))),
    ).toMatchObject({ code: 'url_redirect_refused' });
  });

  it('re-checks the address of every hop: A redirects to B, and B sees no connection', async () => {
    for (const path of ['/to-b', '/to-b-v6']) {
      const err = {
        path,
        ...(await codeOf(safeFetch(`http://127.0.0.1:${a.port}${path}`, admitting()))),
      };
      expect(err).toMatchObject({ path, status: 400, code: 'url_redirect_refused' });
      expect(err.message).toMatch(/loopback/);
    }
    expect(
      await codeOf(safeFetch(`http://127.0.0.1:${a.port}/to-metadata`, admitting())),
    ).toMatchObject({
      code: 'url_redirect_refused',
      message: expect.stringMatching(/metadata/),
    });
    expect(b.connections).toBe(0);
    // B itself is a working listener: admitted directly, it answers.
    const direct = await safeFetch(
      `http://127.0.0.2:${b.port}/`,
      admitting({ allowList: ['127.0.0.2'] }),
    );
    expect(direct.body.toString()).toBe('secret');
    expect(b.connections).toBe(1);
  });

  it('re-checks the protocol of every hop', async () => {
    expect(await codeOf(safeFetch(`http://127.0.0.1:${a.port}/to-ftp`, admitting()))).toMatchObject(
      {
        code: 'url_redirect_refused',
        message: expect.stringMatching(/scheme ftp/),
      },
    );
    // Protocols allowed for this fetch are allowed for every hop, and no others.
    expect(
      await codeOf(
        safeFetch(
          `http://127.0.0.1:${a.port}/to-https`,
          admitting({ allowedProtocols: ['http:'] }),
        ),
      ),
    ).toMatchObject({
      code: 'url_redirect_refused',
      message: expect.stringMatching(/scheme https/),
    });
  });

  it('takes exactly maxBytes and refuses one more, by Content-Length before reading', async () => {
    const fits = await safeFetch(`http://127.0.0.1:${a.port}/exact?n=1000`, admitting());
    expect(fits.body).toHaveLength(1_000);
    expect(
      await codeOf(safeFetch(`http://127.0.0.1:${a.port}/exact?n=1001`, admitting())),
    ).toMatchObject({ status: 413, code: 'url_too_large' });
    // A declared 5 MB is refused on the header alone, though only one byte was sent.
    const started = Date.now();
    expect(
      await codeOf(safeFetch(`http://127.0.0.1:${a.port}/lying-length`, admitting())),
    ).toMatchObject({ status: 413, code: 'url_too_large' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('cuts a body without Content-Length the moment it passes maxBytes', async () => {
    const fits = await safeFetch(`http://127.0.0.1:${a.port}/chunked?n=1000`, admitting());
    expect(fits.body).toHaveLength(1_000);
    expect(
      await codeOf(safeFetch(`http://127.0.0.1:${a.port}/chunked?n=100000`, admitting())),
    ).toMatchObject({ status: 413, code: 'url_too_large' });
  });

  it('bounds the whole exchange in time: no answer, or an answer that never ends', async () => {
    for (const path of ['/silent', '/drip']) {
      const started = Date.now();
      const err = await codeOf(
        safeFetch(
          `http://127.0.0.1:${a.port}${path}`,
          admitting({ timeoutMs: 400, maxBytes: 1_000_000 }),
        ),
      );
      const took = Date.now() - started;
      expect(err).toMatchObject({ status: 400, code: 'url_timeout' });
      expect(took).toBeGreaterThanOrEqual(390);
      expect(took).toBeLessThan(2_000);
    }
    expect(hits).toBe(1);
  });

  it('fetchDocumentFromUrl keeps https only and the default port, whatever the listener', async () => {
    expect(
      await codeOf(fetchDocumentFromUrl(`http://127.0.0.1:${a.port}/ok`, { param: '$.url' })),
    ).toMatchObject({
      code: 'url_not_https',
    });
    expect(await codeOf(fetchDocumentFromUrl(`https://127.0.0.1:${a.port}/ok`))).toMatchObject({
      code: 'url_port_refused',
    });
    expect(await codeOf(fetchDocumentFromUrl('https://localhost/ok'))).toMatchObject({
      code: 'url_address_refused',
    });
  });

  it('fetchDocumentFromUrl returns the bytes and the declared type, and refuses non-2xx', async () => {
    const opened = {
      allowedProtocols: ['http:'],
      allowNonDefaultPorts: true,
      allowList: ['127.0.0.1'],
    };
    const doc = await fetchDocumentFromUrl(`http://127.0.0.1:${a.port}/ok`, opened);
    expect(doc.contentType).toBe('application/pdf');
    expect(doc.bytes.toString()).toBe('%PDF-1.7 body');
    expect(
      await codeOf(fetchDocumentFromUrl(`http://127.0.0.1:${a.port}/missing`, opened)),
    ).toMatchObject({
      code: 'url_fetch_failed',
      message: expect.stringMatching(/HTTP 404/),
    });
  });
});

describe('safeFetch over https', () => {
  let dir: string;
  let tls: Listener;
  beforeAll(async () => {
    // A self-signed certificate for 127.0.0.1, made at test time.
    dir = mkdtempSync(join(tmpdir(), 'safe-fetch-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const server = https.createServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (_req, res) => res.end('over tls'),
    );
    tls = await listen(server, '127.0.0.1');
  });
  afterAll(async () => {
    await tls.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects to an admitted https listener and verifies its certificate (self-signed: refused)', async () => {
    const err = await codeOf(safeFetch(`https://127.0.0.1:${tls.port}/`, admitting()));
    expect(err).toMatchObject({ status: 400, code: 'url_fetch_failed' });
    expect(err.message).toMatch(/self.signed|SELF_SIGNED/i);
    expect(tls.connections).toBe(1);
  });

  it('does not connect at all when the address is not admitted', async () => {
    const before = tls.connections;
    const err = await codeOf(
      safeFetch(`https://127.0.0.1:${tls.port}/`, admitting({ allowList: [] })),
    );
    expect(err.code).toBe('url_address_refused');
    expect(tls.connections).toBe(before);
  });
});
