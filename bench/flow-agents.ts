// The full-flow scenario's load, run inside the load generator child (never on the app's event
// loop): virtual agents, each an async loop of create session → delegate_payment → complete.
// Autocannon sends independent requests; a flow whose second call needs the first one's answer
// is a small client loop instead. Plain node:http with a keep-alive agent (one socket per agent at
// most), so the client costs little CPU next to the app on the same machine.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';

import type { FlowJob, FlowResult, FlowStep, StepResult } from './protocol';
import { FLOW_STEPS } from './protocol';
import { summarise } from './stats';

const API_VERSION = '2026-04-17';
/** Pause of an agent after a failed flow, so a failing step cannot turn into a hot retry loop. */
const BACKOFF_MS = 50;

interface Answer {
  /** null: no HTTP answer (timeout or connection error). */
  status: number | null;
  body: string;
  timedOut: boolean;
}

function send(
  agent: Agent,
  base: () => URL,
  path: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Answer> {
  const url = base();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (a: Answer) => {
      if (!settled) {
        settled = true;
        resolve(a);
      }
    };
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: {
          ...headers,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          finish({
            status: res.statusCode ?? null,
            body: Buffer.concat(chunks).toString('utf8'),
            timedOut: false,
          }),
        );
        res.on('error', (err) => finish({ status: null, body: String(err), timedOut: false }));
      },
    );
    req.setTimeout(timeoutMs, () => {
      finish({ status: null, body: `timeout after ${timeoutMs} ms`, timedOut: true });
      req.destroy();
    });
    req.on('error', (err) => finish({ status: null, body: String(err), timedOut: false }));
    req.end(body);
  });
}

function field(body: string, name: 'id' | 'status'): string | null {
  try {
    const v = (JSON.parse(body) as Record<string, unknown>)[name];
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

export async function runFlow(job: FlowJob): Promise<FlowResult> {
  const bases = (job.baseUrls ?? [job.baseUrl]).map((u) => new URL(u));
  let turn = 0;
  const base = () => bases[turn++ % bases.length];
  // Open loop: enough sockets that a flow never waits for one (its latency is the app's).
  const agent = new Agent({
    keepAlive: true,
    maxSockets: job.flowsPerS !== undefined ? 1024 : job.agents,
  });
  const timeoutMs = job.timeoutS * 1000;
  const merchantKeys = job.merchantKeys?.length ? job.merchantKeys : [job.merchantKey];
  const merchantOf = (index: number) => ({
    Authorization: `Bearer ${merchantKeys[index % merchantKeys.length]}`,
    'API-Version': API_VERSION,
  });
  const createBody = JSON.stringify(job.createBody);

  const latencies: Record<FlowStep, number[]> = { create: [], delegate_payment: [], complete: [] };
  const steps = Object.fromEntries(
    FLOW_STEPS.map((s) => [s, { requests: 0, statusCounts: {}, errors: 0, timeouts: 0 }]),
  ) as Record<FlowStep, Omit<StepResult, 'latencyMs'>>;
  const flowLatencies: number[] = [];
  const failureSamples: FlowResult['failureSamples'] = [];
  const sessionIds: string[] = [];
  const completedSessionIds: string[] = [];
  const unansweredCompletes: FlowResult['unansweredCompletes'] = [];
  const inFlight = job.buyers.map(() => ({ create: 0, delegate_payment: 0, complete: 0 }));
  let interleaved = 0;
  let maxInFlightPerBuyer = 0;
  let flowsStarted = 0;
  let flowsCompletedInWindow = 0;
  let completeNotCompleted = 0;
  let lastResponseAt = 0;

  const started = performance.now();
  const deadline = started + job.durationS * 1000;

  /** One request of one step, counted and timed; the Idempotency-Key is always fresh. */
  const step = async (
    buyer: number,
    name: FlowStep,
    path: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<Answer> => {
    const busy = inFlight[buyer];
    if (FLOW_STEPS.some((s) => s !== name && busy[s] > 0)) {
      interleaved++;
    }
    busy[name]++;
    maxInFlightPerBuyer = Math.max(
      maxInFlightPerBuyer,
      busy.create + busy.delegate_payment + busy.complete,
    );
    const key = `${job.keyPrefix}-${name}-${randomUUID()}`;
    const t0 = performance.now();
    const answer = await send(
      agent,
      base,
      path,
      { ...headers, 'Idempotency-Key': key },
      body,
      timeoutMs,
    );
    const t1 = performance.now();
    busy[name]--;
    lastResponseAt = Math.max(lastResponseAt, t1);
    const stats = steps[name];
    stats.requests++;
    if (answer.status === null) {
      if (answer.timedOut) {
        stats.timeouts++;
      } else {
        stats.errors++;
      }
      if (name === 'complete') {
        // With the credential it was sent with: a replay under another would be another key.
        unansweredCompletes.push({
          key,
          path,
          body,
          headers: { Authorization: headers.Authorization },
        });
      }
    } else {
      latencies[name].push(t1 - t0);
      stats.statusCounts[answer.status] = (stats.statusCounts[answer.status] ?? 0) + 1;
    }
    if ((answer.status === null || answer.status >= 300) && failureSamples.length < 10) {
      failureSamples.push({ step: name, http: answer.status, body: answer.body.slice(0, 300) });
    }
    return answer;
  };

  const pause = () => new Promise((r) => setTimeout(r, BACKOFF_MS));

  /** One flow as agent `index` (its buyer and merchant key); true when it completed. */
  const oneFlow = async (index: number): Promise<boolean> => {
    const b = index % job.buyers.length;
    const buyer = job.buyers[b];
    const buyerHeaders = { Authorization: `Bearer ${buyer.buyerKey}`, 'API-Version': API_VERSION };
    const merchant = merchantOf(index);
    flowsStarted++;
    const t0 = performance.now();
    const created = await step(b, 'create', '/acp/checkout_sessions', merchant, createBody);
    const sessionId = created.status === 201 ? field(created.body, 'id') : null;
    if (sessionId === null) {
      return false;
    }
    sessionIds.push(sessionId);
    const delegated = await step(
      b,
      'delegate_payment',
      '/acp/agentic_commerce/delegate_payment',
      buyerHeaders,
      JSON.stringify({
        payment_method: { type: 'svc_mandate', mandate_id: buyer.mandateId },
        allowance: {
          reason: 'one_time',
          max_amount: job.amountPaise,
          currency: 'inr',
          checkout_session_id: sessionId,
          merchant_id: job.sellerId,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        },
        risk_signals: [],
        metadata: {},
      }),
    );
    const token = delegated.status === 201 ? field(delegated.body, 'id') : null;
    if (token === null) {
      return false;
    }
    const done = await step(
      b,
      'complete',
      `/acp/checkout_sessions/${sessionId}/complete`,
      merchant,
      JSON.stringify({
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: {
            type: 'svc_mandate',
            credential: { type: 'svc_delegated_token', token },
          },
        },
      }),
    );
    if (done.status !== 200) {
      return false;
    }
    if (field(done.body, 'status') !== 'completed') {
      completeNotCompleted++;
      return false;
    }
    const t1 = performance.now();
    flowLatencies.push(t1 - t0);
    completedSessionIds.push(sessionId);
    if (t1 <= deadline) {
      flowsCompletedInWindow++;
    }
    return true;
  };

  /** Closed loop: the agent starts its next flow when the last one ended. */
  const virtualAgent = async (index: number): Promise<void> => {
    while (performance.now() < deadline) {
      if (!(await oneFlow(index))) {
        await pause();
      }
    }
  };

  /**
   * Open loop (job.flowsPerS): flow i starts when it is due, at start + i / rate, whether or not
   * the earlier ones have ended, so a slow answer cannot slow the arrivals down and each step's
   * latency is counted from when it was sent (bench/paced.ts does the same for single requests).
   */
  const pacedFlows = async (perS: number): Promise<void> => {
    const running: Promise<boolean>[] = [];
    for (let i = 0; ; i++) {
      const due = started + (i * 1000) / perS;
      if (due >= deadline) {
        break;
      }
      const wait = due - performance.now();
      if (wait > 0) {
        await new Promise((r) => setTimeout(r, wait));
      }
      running.push(oneFlow(i));
    }
    await Promise.all(running);
  };

  if (job.flowsPerS !== undefined) {
    await pacedFlows(job.flowsPerS);
  } else {
    await Promise.all(Array.from({ length: job.agents }, (_, i) => virtualAgent(i)));
  }
  agent.destroy();

  return {
    name: job.name,
    durationS: job.durationS,
    elapsedS: Math.round((((lastResponseAt || performance.now()) - started) / 1000) * 100) / 100,
    flowsStarted,
    flowsCompleted: completedSessionIds.length,
    flowsCompletedInWindow,
    flowLatencyMs: summarise(flowLatencies),
    steps: Object.fromEntries(
      FLOW_STEPS.map((s) => [s, { ...steps[s], latencyMs: summarise(latencies[s]) }]),
    ) as Record<FlowStep, StepResult>,
    failureSamples,
    sessionIds,
    completedSessionIds,
    completeNotCompleted,
    interleaved,
    maxInFlightPerBuyer,
    unansweredCompletes,
  };
}
