// Child process: runs one job per IPC message (an autocannon LoadJob, or a FlowJob of virtual
// agents, see flow-agents.ts) and answers with its result.
// It lives in its own process so the load generator never shares the app's event loop.
import autocannon from 'autocannon';

import { runFlow } from './flow-agents';
import { runPaced } from './paced';
import type { ChildMessage, FlowJob, FlowResult, LoadJob, LoadResult, PoolItem } from './protocol';
import { round, summarise } from './stats';

function parseBody(text: string): { id: string | null; status: string | null } {
  try {
    const json = JSON.parse(text) as { id?: unknown; status?: unknown };
    return {
      id: typeof json.id === 'string' ? json.id : null,
      status: typeof json.status === 'string' ? json.status : null,
    };
  } catch {
    return { id: null, status: null };
  }
}

function run(job: LoadJob): Promise<LoadResult> {
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  const bodies: LoadResult['bodies'] = [];
  let replayed = 0;
  let sequence = 0;
  let poolNext = 0;
  let clients = 0;
  /** Requests sent with a unique key whose response has not arrived (yet). */
  const inFlight = new Map<string, PoolItem>();
  const idem = job.idempotency;
  const pool = job.pool;

  const spec: autocannon.RequestSpec = {
    method: job.method,
    path: job.path,
    headers: job.headers,
    body: job.body,
    onResponse: (status, body, context, headers) => {
      if (typeof context.key === 'string') {
        inFlight.delete(context.key);
      }
      // Header names arrive as the server spelled them.
      if (
        Object.entries(headers).some(
          ([k, v]) => k.toLowerCase() === 'idempotent-replayed' && v === 'true',
        )
      ) {
        replayed++;
      }
      if (job.collectBodies) {
        bodies.push({ http: status, ...parseBody(body), at: Date.now() });
      }
    },
  };
  // A setupRequest makes autocannon rebuild every request, so only install one when needed.
  if (pool || idem?.mode === 'unique') {
    spec.setupRequest = (req, context) => {
      const headers = { ...job.headers };
      // maxOverallRequests = pool.length keeps us inside the pool; the clamp is belt and braces.
      const item = pool
        ? pool[Math.min(poolNext++, pool.length - 1)]
        : { path: job.path, body: job.body ?? '' };
      Object.assign(headers, item.headers);
      if (idem?.mode === 'unique') {
        const key = `${idem.prefix}-${++sequence}`;
        headers['Idempotency-Key'] = key;
        // The context travels with this request to its onResponse.
        context.key = key;
        inFlight.set(key, item);
      }
      return { ...req, path: item.path, body: item.body, headers };
    };
  }

  const opts: autocannon.Options = {
    url: job.baseUrl,
    connections: job.connections,
    duration: job.durationS,
    timeout: 10,
    requests: [spec],
  };
  if (idem?.mode === 'per-connection') {
    opts.setupClient = (client) => {
      client.setHeaders({
        ...job.headers,
        'Idempotency-Key': idem.keys[clients++ % idem.keys.length],
      });
    };
  }
  if (pool) {
    opts.maxOverallRequests = pool.length;
  }

  return new Promise((resolve, reject) => {
    const started = performance.now();
    let lastResponseAt: number | undefined;
    const instance = autocannon(opts, (err, result) => {
      if (err) {
        reject(err);
        return;
      }
      // autocannon reports on its next 1 s tick, so time the run by its last response instead.
      const elapsedS = ((lastResponseAt ?? performance.now()) - started) / 1000;
      const non2xx = Object.entries(statusCounts)
        .filter(([code]) => !code.startsWith('2'))
        .reduce((n, [, count]) => n + count, 0);
      resolve({
        name: job.name,
        elapsedS: round(elapsedS),
        responses: latencies.length,
        statusCounts,
        non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        latencyMs: summarise(latencies),
        replayed,
        bodies,
        poolUsed: pool ? Math.min(poolNext, pool.length) : 0,
        unanswered: [...inFlight].map(([key, item]) => ({ key, ...item })),
      });
    });
    instance.on(
      'response',
      (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
        lastResponseAt = performance.now();
        latencies.push(responseTime);
        statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
      },
    );
  });
}

process.on('message', (job: LoadJob | FlowJob) => {
  const done: Promise<LoadResult | FlowResult> =
    'kind' in job && job.kind === 'flow'
      ? runFlow(job)
      : (job as LoadJob).overallRate
        ? runPaced(job as LoadJob, { parseBody })
        : run(job as LoadJob);
  done.then(
    (result) =>
      process.send?.({ ok: true, result } satisfies ChildMessage<LoadResult | FlowResult>),
    (err: unknown) =>
      process.send?.({
        ok: false,
        error: (err as Error).stack ?? String(err),
      } satisfies ChildMessage<never>),
  );
});

// The orchestrator is gone (finished or crashed): nothing left to do.
process.on('disconnect', () => process.exit(0));
