/** Messages between the orchestrator (bench/run.ts) and the load generator child (bench/load-generator.ts). */
import type { LatencySummary } from './stats';

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
  /** Headers of this request only, over the job's (e.g. the merchant key that created the session). */
  headers?: Record<string, string>;
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
  /** Open loop: this many requests per second, evenly spaced, over at most `connections` sockets (paced.ts). */
  overallRate?: number;
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
  latencyMs: LatencySummary;
  /** Responses that carried `Idempotent-Replayed: true`. */
  replayed: number;
  /** With collectBodies: HTTP status, body `id` and body `status` of each response, and when it arrived (ms since the epoch). */
  bodies: { http: number; id: string | null; status: string | null; at: number }[];
  /** With a pool: how many items were handed out. */
  poolUsed: number;
  /**
   * Requests with a unique key that were sent but got no response before the run stopped (the
   * server may still have done them). Replaying them with the same key recovers their outcome.
   */
  unanswered: { key: string; path: string; body: string; headers?: Record<string, string> }[];
}

/**
 * The full-flow scenario: `agents` virtual agents, agent i paying as buyers[i % buyers.length],
 * each looping create session → delegate_payment → complete until `durationS` has passed (the
 * flow in progress then finishes). Every request carries a fresh Idempotency-Key.
 */
export interface FlowJob {
  kind: 'flow';
  name: string;
  baseUrl: string;
  /** Several instances: each request goes to the next one in turn, as a round-robin load balancer would. */
  baseUrls?: string[];
  durationS: number;
  agents: number;
  merchantKey: string;
  /**
   * Several merchant keys of the seller: agent i creates and completes with merchantKeys[i % n],
   * so each key stays under the per-credential rate limit (bench/production.ts). Unset: merchantKey.
   */
  merchantKeys?: string[];
  sellerId: string;
  buyers: { id: string; buyerKey: string; mandateId: string }[];
  /** POST /acp/checkout_sessions body. */
  createBody: unknown;
  /** The session total; delegate_payment's allowance.max_amount. */
  amountPaise: number;
  keyPrefix: string;
  /** Per-request client timeout. */
  timeoutS: number;
  /**
   * Open loop: flow i starts at start + i / flowsPerS (until durationS), as agent i, whatever the
   * earlier flows are doing; `agents` is then ignored. Unset: `agents` closed-loop agents.
   */
  flowsPerS?: number;
}

export const FLOW_STEPS = ['create', 'delegate_payment', 'complete'] as const;
export type FlowStep = (typeof FLOW_STEPS)[number];

export interface StepResult {
  requests: number;
  /** Responses per HTTP status; transport failures are counted in errors/timeouts instead. */
  statusCounts: Record<string, number>;
  /** Connection errors (reset, refused). */
  errors: number;
  timeouts: number;
  /** Client-side latency of the answered requests. */
  latencyMs: LatencySummary;
}

export interface FlowResult {
  name: string;
  durationS: number;
  /** Seconds from the first request to the last response (the flows in progress at the deadline finish). */
  elapsedS: number;
  flowsStarted: number;
  /** complete answered 200 with status completed. */
  flowsCompleted: number;
  /** Of those, completed before the deadline: flows/s = this ÷ durationS. */
  flowsCompletedInWindow: number;
  /** create → complete of the completed flows, ms. */
  flowLatencyMs: LatencySummary;
  steps: Record<FlowStep, StepResult>;
  /** Up to 10 non-2xx answers (or transport failures), for the report. */
  failureSamples: { step: FlowStep; http: number | null; body: string }[];
  /** Ids of every session created (201), for the invariant checks. */
  sessionIds: string[];
  /** Sessions whose complete answered 200 + completed. */
  completedSessionIds: string[];
  /** complete answered 200 but with another status (declined, pending_approval…). */
  completeNotCompleted: number;
  /**
   * Requests that started while a request of ANOTHER step for the same buyer was in flight
   * (e.g. a complete while another agent's delegate_payment for that buyer runs): the
   * interleaving this scenario exists to produce.
   */
  interleaved: number;
  /** Most requests of one buyer in flight at once. */
  maxInFlightPerBuyer: number;
  /** complete requests that timed out or lost their connection (the server may have done them). */
  unansweredCompletes: {
    key: string;
    path: string;
    body: string;
    headers?: Record<string, string>;
  }[];
}

export type ChildMessage<R = LoadResult> = { ok: true; result: R } | { ok: false; error: string };
