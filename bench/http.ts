import { randomUUID } from 'node:crypto';

export const API_VERSION = '2026-04-17';

export interface HttpResponse<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small JSON client for seeding and checks (never used inside a timed phase). */
export class Http {
  constructor(private readonly baseUrl: string) {}

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    opts: {
      bearer?: string;
      body?: unknown;
      acp?: boolean;
      /** true: a fresh key; a string: that key. */
      idempotent?: boolean | string;
    } = {},
  ): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = {};
    if (opts.bearer) {
      headers.Authorization = `Bearer ${opts.bearer}`;
    }
    if (opts.acp) {
      headers['API-Version'] = API_VERSION;
    }
    if (opts.idempotent) {
      headers['Idempotency-Key'] =
        typeof opts.idempotent === 'string' ? opts.idempotent : `seed-${randomUUID()}`;
    }
    if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text ? JSON.parse(text) : null) as T,
      headers: res.headers,
    };
  }

  /** Like request, but anything other than the expected status is an error naming the response. */
  async expect<T = Record<string, unknown>>(
    status: number,
    method: string,
    path: string,
    opts: Parameters<Http['request']>[2] = {},
  ): Promise<T> {
    const res = await this.request<T>(method, path, opts);
    if (res.status !== status) {
      throw new Error(
        `${method} ${path}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`,
      );
    }
    return res.body;
  }
}

/** Runs fn over items with at most `concurrency` in flight; results keep the input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}
