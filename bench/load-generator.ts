// Child process: runs one autocannon job per IPC message and answers with a LoadResult.
// It lives in its own process so the load generator never shares the app's event loop.
import autocannon from 'autocannon';
import type { ChildMessage, LoadJob, LoadResult } from './protocol';

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) {
    return 0;
  }
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

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
  const inFlight = new Map<string, { path: string; body: string }>();
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
        bodies.push({ http: status, ...parseBody(body) });
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
      latencies.sort((a, b) => a - b);
      const sum = latencies.reduce((a, b) => a + b, 0);
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
        latencyMs: {
          p50: round(percentile(latencies, 50)),
          p95: round(percentile(latencies, 95)),
          p99: round(percentile(latencies, 99)),
          mean: round(latencies.length ? sum / latencies.length : 0),
          max: round(latencies[latencies.length - 1] ?? 0),
        },
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

process.on('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send?.({ ok: true, result } satisfies ChildMessage),
    (err: unknown) =>
      process.send?.({
        ok: false,
        error: (err as Error).stack ?? String(err),
      } satisfies ChildMessage),
  );
});

// The orchestrator is gone (finished or crashed): nothing left to do.
process.on('disconnect', () => process.exit(0));
