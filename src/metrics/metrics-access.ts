import { createHash, timingSafeEqual } from 'node:crypto';

import type { AppConfig } from '../config/app.config';

/**
 * Who may read GET /metrics (docs/operations.md "Operating it"):
 * - `token`: METRICS_TOKEN is set (any mode): `Authorization: Bearer <METRICS_TOKEN>` only;
 * - `open`: sandbox and test without a token: anyone who can reach the port (local use);
 * - `off`: live without a token: not served at all (404, as an unknown route). Business counts
 *   and queue depths of a live payments service are not for the public internet, and a second
 *   port would be one more thing to get wrong; set METRICS_TOKEN to turn it on.
 */
export type MetricsAccess = 'token' | 'open' | 'off';

export function metricsAccess(config: Pick<AppConfig, 'mode' | 'metricsToken'>): MetricsAccess {
  if (config.metricsToken) {
    return 'token';
  }
  return config.mode === 'live' ? 'off' : 'open';
}

/**
 * Whether an Authorization header carries exactly `Bearer <token>`. Both sides are hashed first,
 * so the comparison is constant-time and does not reveal the token's length either.
 */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const presented = /^Bearer +([^\s]+)$/i.exec(authorization ?? '')?.[1];
  if (presented === undefined) {
    return false;
  }
  const digest = (v: string) => createHash('sha256').update(v, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(token));
}
