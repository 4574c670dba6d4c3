import http, { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';

import { AppError } from '../errors/app-error';
import { AddressRefusedError, GuardedAgents, sharedGuardedAgents } from './guarded-agents';
import { publicOnly } from './outbound-policy';
import { safeFetchErrors } from './safe-fetch.errors';

export { type AddressClass, classifyAddress } from './address-class';

/**
 * SSRF-safe GET of a user-supplied URL (docs/documents.md "Documents and outbound fetches"):
 *
 * - only the allowed protocols (https by default), no credentials in the URL, and the scheme's
 *   default port unless `allowNonDefaultPorts`;
 * - the address is checked at connect time, after DNS resolution, by request-filtering-agent
 *   behind our own policy (guarded-agents.ts): private, loopback, link-local, CGNAT, unspecified,
 *   multicast, reserved, IPv4-mapped and cloud metadata addresses are refused without a socket
 *   being opened. `allowList` admits exact addresses (tests' loopback listeners), never metadata;
 * - redirects (301, 302, 303, 307, 308) are followed by hand, at most `maxRedirects`, and every
 *   hop is checked again (protocol, port, credentials, and the address when it connects);
 * - the body is bounded: a Content-Length above `maxBytes` is refused before any byte is read and
 *   the download is cut the moment it passes `maxBytes`;
 * - the whole exchange (every hop, DNS, TLS, body) must finish within `timeoutMs`.
 *
 * Every refusal is a 4xx AppError (safe-fetch.errors.ts). Responses of any status are returned
 * (except followed redirects): the caller decides what a 404 means.
 */
export interface SafeFetchOptions {
  maxBytes: number;
  timeoutMs: number;
  /** Default `['https:']`; only `http:` and `https:` are ever possible. */
  allowedProtocols?: readonly string[];
  /** Default 3. */
  maxRedirects?: number;
  /** Exact IP addresses admitted although not public (never a metadata address). */
  allowList?: readonly string[];
  /** Default false: only port 443 for https (80 for http). */
  allowNonDefaultPorts?: boolean;
  /** JSONPath of the field that held the URL, put on every refusal. */
  param?: string;
}

export interface SafeFetchResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered, after redirects. */
  finalUrl: string;
}

export const USER_AGENT = 'agent-payments-fetch/1.0';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const KNOWN_PROTOCOLS = new Set(['http:', 'https:']);

type Hop = { redirect: URL | null; result: SafeFetchResult | null };

interface Exchange {
  opts: Required<Omit<SafeFetchOptions, 'param' | 'allowList'>> & { param?: string };
  agents: GuardedAgents;
  signal: AbortSignal;
}

type UrlRefusal = { kind: 'protocol' | 'credentials' | 'port'; reason: string };

/** Why this URL may not be requested, or null: protocol, credentials, port (not the address). */
function urlRefusal(url: URL, opts: Exchange['opts']): UrlRefusal | null {
  if (!opts.allowedProtocols.includes(url.protocol)) {
    return { kind: 'protocol', reason: `scheme ${url.protocol.replace(/:$/, '')} is not allowed` };
  }
  if (url.username || url.password) {
    return { kind: 'credentials', reason: 'URLs with credentials are not fetched' };
  }
  if (url.port !== '' && !opts.allowNonDefaultPorts) {
    return { kind: 'port', reason: `port ${url.port} is not the default port of ${url.protocol}` };
  }
  return null;
}

function firstUrlError(url: URL, refusal: UrlRefusal, opts: Exchange['opts']): AppError {
  switch (refusal.kind) {
    case 'protocol':
      return safeFetchErrors.notHttps(url.protocol, opts.allowedProtocols, opts.param);
    case 'port':
      return safeFetchErrors.portRefused(url.port, opts.param);
    case 'credentials':
      return safeFetchErrors.invalid(refusal.reason, opts.param);
  }
}

function contentLengthOf(res: IncomingMessage): number | null {
  const raw = res.headers['content-length'];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : null;
}

/** One GET: a redirect to follow, or the bounded response. */
function requestOnce(url: URL, ex: Exchange): Promise<Hop> {
  const { maxBytes, param } = ex.opts;
  return new Promise<Hop>((resolve, reject) => {
    let settled = false;
    // Settle first, then tear down: destroying a response emits 'aborted' and 'error' at once.
    const finish = (outcome: { hop: Hop } | { error: Error }, res?: IncomingMessage) => {
      if (!settled) {
        settled = true;
        if ('hop' in outcome) {
          resolve(outcome.hop);
        } else {
          reject(outcome.error);
        }
      }
      res?.destroy();
    };
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.get(url, {
      agent: url.protocol === 'https:' ? ex.agents.https : ex.agents.http,
      signal: ex.signal,
      headers: { 'user-agent': USER_AGENT, accept: '*/*', 'accept-encoding': 'identity' },
    });
    req.on('error', (error) => finish({ error }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location !== undefined) {
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          return finish(
            { error: safeFetchErrors.redirectRefused('a Location that is not a URL', param) },
            res,
          );
        }
        return finish({ hop: { redirect: next, result: null } }, res);
      }
      const declared = contentLengthOf(res);
      if (declared !== null && declared > maxBytes) {
        return finish({ error: safeFetchErrors.tooLarge(maxBytes, param) }, res);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          return finish({ error: safeFetchErrors.tooLarge(maxBytes, param) }, res);
        }
        chunks.push(chunk);
      });
      res.on('error', (error) => finish({ error }));
      res.on('aborted', () => finish({ error: new Error('the response was cut off') }));
      res.on('end', () =>
        finish({
          hop: {
            redirect: null,
            result: {
              status,
              headers: res.headers,
              body: Buffer.concat(chunks, size),
              finalUrl: url.toString(),
            },
          },
        }),
      );
    });
  });
}

function describe(err: Error & { code?: unknown }): string {
  const code = typeof err.code === 'string' ? err.code : null;
  return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
}

export async function safeFetch(
  rawUrl: string,
  options: SafeFetchOptions,
): Promise<SafeFetchResult> {
  const opts: Exchange['opts'] = {
    allowedProtocols: ['https:'],
    maxRedirects: 3,
    allowNonDefaultPorts: false,
    ...options,
  };
  const { param, timeoutMs } = opts;
  if (!Number.isSafeInteger(opts.maxBytes) || opts.maxBytes < 0) {
    throw new TypeError('safeFetch: maxBytes must be a non-negative integer');
  }
  if (!(timeoutMs > 0) || !Number.isInteger(opts.maxRedirects) || opts.maxRedirects < 0) {
    throw new TypeError('safeFetch: timeoutMs must be positive and maxRedirects an integer >= 0');
  }
  if (opts.allowedProtocols.some((p) => !KNOWN_PROTOCOLS.has(p))) {
    throw new TypeError('safeFetch: allowedProtocols may hold only http: and https:');
  }
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw safeFetchErrors.invalid('The URL is not an absolute URL', param);
  }
  const first = urlRefusal(url, opts);
  if (first) {
    throw firstUrlError(url, first, opts);
  }

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const ex: Exchange = {
    opts,
    agents: sharedGuardedAgents(publicOnly(options.allowList ?? [])),
    signal: controller.signal,
  };
  let hop = 0;
  try {
    for (;;) {
      const { redirect, result } = await requestOnce(url, ex);
      if (result) {
        return result;
      }
      const next = redirect!;
      if (hop >= opts.maxRedirects) {
        throw safeFetchErrors.redirectRefused(
          `more than ${opts.maxRedirects} redirects (at ${next.origin})`,
          param,
        );
      }
      const refusal = urlRefusal(next, opts);
      if (refusal) {
        throw safeFetchErrors.redirectRefused(`${next.origin} (${refusal.reason})`, param);
      }
      url = next;
      hop++;
    }
  } catch (err) {
    if (timedOut) {
      throw safeFetchErrors.timeout(timeoutMs, param);
    }
    if (err instanceof AppError) {
      throw err;
    }
    if (err instanceof AddressRefusedError) {
      throw hop === 0
        ? safeFetchErrors.addressRefused(err.reason, param)
        : safeFetchErrors.redirectRefused(`${url.origin} (${err.reason})`, param);
    }
    throw safeFetchErrors.fetchFailed(describe(err as Error), param);
  } finally {
    clearTimeout(timer);
  }
}
