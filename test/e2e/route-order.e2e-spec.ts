import request from 'supertest';

import { startApp, TestApp } from '../support/app';

/**
 * Express tries an app's routes one by one, in the order Nest registered them (module by module,
 * src/app.module.ts), until one matches: the purchase's three routes are registered early so each
 * of its requests is matched after few others (bench/README.md "Routes tried per request"). This
 * pins how early, and that the order changes no answer: no two routes take the same method and path.
 */
interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  match(path: string): boolean;
}

const PURCHASE: { method: string; path: string; before: number }[] = [
  { method: 'post', path: '/acp/checkout_sessions', before: 40 },
  { method: 'post', path: '/acp/checkout_sessions/cs_x/complete', before: 40 },
  { method: 'post', path: '/acp/agentic_commerce/delegate_payment', before: 70 },
];

describe('Route order', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });

  afterAll(async () => {
    await t.close();
  });

  function routes(): Layer[] {
    // Express's own router (the `router` package): its layers are not in Express's public types.
    const app = t.app.getHttpAdapter().getInstance() as { router: { stack: unknown[] } };
    return app.router.stack as Layer[];
  }

  it.each(PURCHASE)(
    '$method $path is among the first $before routes',
    ({ method, path, before }) => {
      // The pipeline's middleware is mounted as catch-all routes (`/{*path}`): not a route of its own.
      const at = routes().findIndex(
        (l) => l.route?.methods[method] && !l.route.path.includes('*') && l.match(path),
      );
      expect(at).toBeGreaterThan(0);
      expect(at).toBeLessThan(before);
    },
  );

  it('no two routes take the same method and path, so their order changes no answer', () => {
    // Catch-alls (`*`) answer what nothing else did; /docs and /docs/ are Swagger UI's one page.
    const own = routes().filter(
      (l): l is Required<Layer> =>
        l.route !== undefined && !l.route.path.includes('*') && !l.route.path.startsWith('/docs'),
    );
    const clashes: string[] = [];
    for (const a of own) {
      // A path the route itself matches: each parameter as a plain segment.
      const sample = a.route.path.replace(/:[A-Za-z_]+/g, 'x1');
      for (const b of own) {
        const same = Object.keys(a.route.methods).some((m) => b.route.methods[m]);
        if (b !== a && same && b.match(sample)) {
          clashes.push(`${a.route.path} also matched by ${b.route.path}`);
        }
      }
    }
    expect(clashes).toEqual([]);
  });

  it('the routes that came before them still answer as before', async () => {
    // An unknown /acp path is still the JSON 404 and an unknown /app path the page's 404.
    const acp = await request(t.url).get('/acp/checkout_sessions_nope');
    expect(acp.status).toBe(404);
    expect(acp.headers['content-type']).toMatch(/json/);
    const page = await request(t.url).get('/app/nope').set('Accept', 'text/html');
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toMatch(/html/);
  });
});
