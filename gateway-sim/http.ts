import { createHash, timingSafeEqual } from 'node:crypto';
import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

import { sleep } from './core';
import { badRequest, SimError } from './errors';

/** A tiny router and the request/reply plumbing of the simulator (node:http, no framework). */

export interface SimRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  params: Record<string, string>;
  body: unknown;
  headers: IncomingHttpHeaders;
}

export interface SimReply {
  status: number;
  json?: unknown;
  /** A page, a script or a stylesheet, sent with `type`. */
  text?: string;
  type?: string;
  headers?: Record<string, string>;
  /** Answer this much later (the money has already moved: `/__sim/next` respond_delay_ms). */
  delayMs?: number;
}

export type Handler = (req: SimRequest) => SimReply | Promise<SimReply>;

interface Route {
  method: string;
  pattern: RegExp;
  keys: string[];
  handler: Handler;
  /** `/v1` API routes: HTTP Basic with the key pair; POSTs honour Idempotency-Key. */
  api: boolean;
}

export function json(body: unknown, status = 200, delayMs = 0): SimReply {
  return { status, json: body, delayMs };
}

export class Router {
  private readonly routes: Route[] = [];

  /** `path` like `/v1/orders/:id`; a `:name` matches one path segment. */
  add(method: string, path: string, handler: Handler, opts: { api?: boolean } = {}): void {
    const keys: string[] = [];
    const pattern = new RegExp(
      `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_m, k: string) => {
        keys.push(k);
        return '([^/]+)';
      })}$`,
    );
    this.routes.push({ method, pattern, keys, handler, api: opts.api ?? false });
  }

  match(
    method: string,
    path: string,
  ): { route: Route; params: Record<string, string> } | 'method' | null {
    let pathMatched = false;
    for (const route of this.routes) {
      const m = route.pattern.exec(path);
      if (!m) {
        continue;
      }
      pathMatched = true;
      if (route.method === method) {
        const params: Record<string, string> = {};
        route.keys.forEach((k, i) => (params[k] = decodeSegment(m[i + 1])));
        return { route, params };
      }
    }
    return pathMatched ? 'method' : null;
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest('The URL is not validly encoded');
  }
}

interface StoredResponse {
  fingerprint: string;
  reply: Promise<SimReply>;
  /** The answer once it is known (kept for the optional state file, store.ts StateFile). */
  done?: SimReply;
}

/** A stored answer as the state file keeps it. */
export interface SavedIdempotency {
  key: string;
  fingerprint: string;
  reply: SimReply;
}

/**
 * Idempotency-Key on API POSTs: the same key gives the same stored answer (status and body), also
 * while the first call is still running; the same key with another method, path or body is a 400.
 * 5xx answers are not kept, so a retry after a server error runs again.
 */
export class IdempotencyStore {
  private readonly entries = new Map<string, StoredResponse>();

  run(key: string, fingerprint: string, work: () => Promise<SimReply>): Promise<SimReply> {
    const existing = this.entries.get(key);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        return Promise.reject(
          badRequest(
            'The Idempotency-Key was already used for a different request',
            'idempotency_key',
          ),
        );
      }
      return existing.reply.then((r) => ({ ...r, delayMs: 0 }));
    }
    const reply = work();
    const entry: StoredResponse = { fingerprint, reply };
    this.entries.set(key, entry);
    reply.then(
      (r) => {
        if (r.status >= 500) {
          this.entries.delete(key);
        } else {
          entry.done = r;
        }
      },
      () => this.entries.delete(key),
    );
    return reply;
  }

  clear(): void {
    this.entries.clear();
  }

  /** The finished answers (a call still running is not kept: its retry runs again). */
  saved(): SavedIdempotency[] {
    const out: SavedIdempotency[] = [];
    for (const [key, e] of this.entries) {
      if (e.done) {
        out.push({ key, fingerprint: e.fingerprint, reply: { ...e.done, delayMs: 0 } });
      }
    }
    return out;
  }

  restore(saved: SavedIdempotency[]): void {
    for (const s of saved) {
      this.entries.set(s.key, {
        fingerprint: s.fingerprint,
        reply: Promise.resolve(s.reply),
        done: s.reply,
      });
    }
  }
}

/** Constant-time check of `Authorization: Basic base64(key_id:key_secret)`. */
export function basicAuthOk(header: string | undefined, keyId: string, keySecret: string): boolean {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!m) {
    return false;
  }
  const given = createHash('sha256').update(Buffer.from(m[1], 'base64')).digest();
  const expected = createHash('sha256').update(`${keyId}:${keySecret}`).digest();
  return timingSafeEqual(given, expected);
}

const MAX_BODY = 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY) {
      throw new SimError(413, 'BAD_REQUEST_ERROR', 'The request body is too large');
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function parseJsonBody(raw: string): unknown {
  if (raw.trim() === '') {
    return undefined;
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw badRequest('The request body is not valid JSON');
  }
}

export async function send(res: ServerResponse, reply: SimReply): Promise<void> {
  if (reply.delayMs) {
    await sleep(reply.delayMs);
  }
  if (res.destroyed || res.writableEnded) {
    return;
  }
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    ...reply.headers,
  };
  let payload: string;
  if (reply.text !== undefined) {
    headers['content-type'] = reply.type ?? 'text/plain; charset=utf-8';
    payload = reply.text;
  } else {
    headers['content-type'] = 'application/json; charset=utf-8';
    payload = JSON.stringify(reply.json ?? {});
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}
