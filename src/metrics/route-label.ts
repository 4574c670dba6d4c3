import type { Request } from 'express';

/** Every request no route answered (Nest's 404), whatever its path: one label, not one per path. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Trees served by something other than a Nest route, labelled as a whole: the queue dashboard
 * (an Express app of its own, whose internal routes would otherwise leak in), the app's static
 * stylesheet and Swagger UI's files.
 */
const TREES: [prefix: string, label: string][] = [
  ['/app/ops/queues', '/app/ops/queues/*'],
  ['/app/assets', '/app/assets/*'],
  ['/docs', '/docs/*'],
];

/**
 * Templates that match any path: Nest mounts middleware (forRoutes('*')) and its 404 handler on
 * them, so a request that reaches no handler still carries one of these.
 */
const CATCH_ALL = new Set(['/{*path}', '*', '/*', '(.*)', '/(.*)']);

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function inTree(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * The route template a request matched (`/v1/pay/intents/:id`), never the raw path: ids are not
 * labels. Read when the response finishes, from the route Express matched (Nest registers each
 * handler as an Express route with its full template).
 */
export function routeLabel(req: Request): string {
  const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
  const dashboard = TREES[0];
  if (inTree(path, dashboard[0])) {
    return dashboard[1];
  }
  const template = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof template === 'string' && !CATCH_ALL.has(template)) {
    return `${req.baseUrl ?? ''}${template}`;
  }
  for (const [prefix, label] of TREES) {
    if (inTree(path, prefix)) {
      return label;
    }
  }
  return UNMATCHED_ROUTE;
}

export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'OTHER';
}
