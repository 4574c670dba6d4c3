// Open loop at a uniform arrival rate, for the fixed-rate scenarios (5h, 8): request i is due at
// start + i / rate, whatever the answers before it. autocannon's overallRate sends each second's
// share as a burst at the start of the second (each connection its `rate` at once), so its
// "half of max" measured a burst of that second's requests queueing behind each other.
import { Agent, request } from 'node:http';

import type { LoadJob, LoadResult, PoolItem } from './protocol';
import { round, summarise } from './stats';

/** The same record of each answer as the autocannon runner keeps (load-generator.ts). */
export interface PacedHooks {
  parseBody(text: string): { id: string | null; status: string | null };
}

const TIMEOUT_MS = 10_000;

/**
 * Runs `job` (which has `overallRate`) as a uniform open loop over at most `connections` kept-alive
 * sockets. A request's latency counts from when it was due, so a late send (the generator or the
 * machine falling behind) is part of it, not hidden.
 */
export async function runPaced(job: LoadJob, hooks: PacedHooks): Promise<LoadResult> {
  const rate = job.overallRate ?? 0;
  if (rate <= 0) {
    throw new Error('runPaced needs overallRate');
  }
  const url = new URL(job.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: job.connections });
  const total = Math.min(
    job.pool?.length ?? Infinity,
    Math.max(1, Math.floor(rate * job.durationS)),
  );
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  const bodies: LoadResult['bodies'] = [];
  const inFlight = new Map<string, PoolItem>();
  let replayed = 0;
  let errors = 0;
  let timeouts = 0;
  let lastResponseAt: number | undefined;

  const send = (i: number, due: number): Promise<void> =>
    new Promise((resolve) => {
      const item = job.pool ? job.pool[i] : { path: job.path, body: job.body ?? '' };
      const headers: Record<string, string> = { ...job.headers, ...item.headers };
      let key: string | null = null;
      if (job.idempotency?.mode === 'unique') {
        key = `${job.idempotency.prefix}-${i + 1}`;
        headers['Idempotency-Key'] = key;
        inFlight.set(key, item);
      } else if (job.idempotency?.mode === 'per-connection') {
        headers['Idempotency-Key'] = job.idempotency.keys[i % job.idempotency.keys.length];
      }
      headers['Content-Length'] = String(Buffer.byteLength(item.body));
      const req = request(
        { agent, host: url.hostname, port: url.port, method: job.method, path: item.path, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            lastResponseAt = performance.now();
            latencies.push(lastResponseAt - due);
            const status = res.statusCode ?? 0;
            statusCounts[status] = (statusCounts[status] ?? 0) + 1;
            if (res.headers['idempotent-replayed'] === 'true') {
              replayed++;
            }
            if (key !== null) {
              inFlight.delete(key);
            }
            if (job.collectBodies) {
              bodies.push({
                http: status,
                ...hooks.parseBody(Buffer.concat(chunks).toString('utf8')),
                at: Date.now(),
              });
            }
            resolve();
          });
        },
      );
      req.setTimeout(TIMEOUT_MS, () => {
        timeouts++;
        req.destroy(new Error('timeout'));
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(item.body);
    });

  const started = performance.now();
  const sent: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait >= 1) {
      await new Promise((r) => setTimeout(r, wait));
    }
    sent.push(send(i, due));
  }
  await Promise.all(sent);
  agent.destroy();
  const elapsedS = ((lastResponseAt ?? performance.now()) - started) / 1000;
  return {
    name: job.name,
    elapsedS: round(elapsedS),
    responses: latencies.length,
    statusCounts,
    non2xx: Object.entries(statusCounts)
      .filter(([code]) => !code.startsWith('2'))
      .reduce((n, [, count]) => n + count, 0),
    errors,
    timeouts,
    latencyMs: summarise(latencies),
    replayed,
    bodies,
    poolUsed: job.pool ? total : 0,
    unanswered: [...inFlight].map(([k, item]) => ({ key: k, ...item })),
  };
}
