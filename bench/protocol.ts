/** Messages between the orchestrator (bench/run.ts) and the load generator child (bench/load-generator.ts). */

/** How each request gets its Idempotency-Key. */
export type IdempotencyMode =
  /** A fresh key on every request (`<prefix>-<n>`). */
  | { mode: 'unique'; prefix: string }
  /** Connection i always sends keys[i % keys.length]: repeated requests, never two at once on one key. */
  | { mode: 'per-connection'; keys: string[] };

/** One request per item, each item used once (pre-minted sessions and tokens). */
export interface PoolItem {
  path: string;
  body: string;
}

export interface LoadJob {
  name: string;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  durationS: number;
  connections: number;
  method: 'GET' | 'POST';
  /** Path of every request (ignored with a pool). */
  path: string;
  headers: Record<string, string>;
  body?: string;
  idempotency?: IdempotencyMode;
  /** With a pool, the run also ends when every item has been sent. */
  pool?: PoolItem[];
  /** Record `id` and `status` of JSON response bodies (for correctness checks afterwards). */
  collectBodies?: boolean;
}

export interface LoadResult {
  name: string;
  /** Wall-clock seconds from the first request to the last response. */
  elapsedS: number;
  responses: number;
  statusCounts: Record<string, number>;
  non2xx: number;
  /** Connection errors (resets, refused) and timeouts, as autocannon counts them. */
  errors: number;
  timeouts: number;
  latencyMs: { p50: number; p95: number; p99: number; mean: number; max: number };
  /** Responses that carried `Idempotent-Replayed: true`. */
  replayed: number;
  /** With collectBodies: HTTP status, body `id` and body `status` of each response. */
  bodies: { http: number; id: string | null; status: string | null }[];
  /** With a pool: how many items were handed out. */
  poolUsed: number;
  /**
   * Requests with a unique key that were sent but got no response before the run stopped (the
   * server may still have done them). Replaying them with the same key recovers their outcome.
   */
  unanswered: { key: string; path: string; body: string }[];
}

export type ChildMessage = { ok: true; result: LoadResult } | { ok: false; error: string };
