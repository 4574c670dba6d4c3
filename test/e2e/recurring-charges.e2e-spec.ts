import { startApp } from '../support/app';
import { recurringSuite } from '../support/recurring-suite';

/** The recurring suite (test/support/recurring-suite.ts) on the sandbox rail. */
recurringSuite('sandbox', async () => {
  const t = await startApp({ runWorkers: false });
  return { t, close: () => t.close() };
});
