import type { Clock } from '../../src/common/clock';
import { startGatewayApp } from '../support/gateway-app';
import { recurringSuite } from '../support/recurring-suite';

/**
 * The recurring suite (test/support/recurring-suite.ts) on the gateway rail against the simulator,
 * whose clock is the service's (moved to exact IST instants by the suite): each debit is a
 * recurring payment on the mandate's AutoPay token, registered when the person authorised it.
 */
recurringSuite('gateway', async () => {
  let clock: Clock | null = null;
  const app = await startGatewayApp({
    overrides: { runWorkers: false },
    sim: { clock: () => (clock ? clock.now().getTime() : Date.now()) },
  });
  clock = app.t.clock;
  return { t: app.t, close: () => app.close() };
});
