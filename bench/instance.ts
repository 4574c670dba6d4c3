// Child process: a second instance of the app on the bench database and Redis (same environment
// as the orchestrator: DATABASE_URL, REDIS_URL, QUEUE_PREFIX=bench), for the two-instance
// scenario. Answers {type: 'rss'} with its resident set size; closes when the orchestrator goes.
import { startInstance } from './setup';

async function main(): Promise<void> {
  const running = await startInstance();
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'rss') {
      process.send?.({ type: 'rss', rss: process.memoryUsage().rss });
    }
  });
  process.on('disconnect', () => {
    void running.app.close().finally(() => process.exit(0));
  });
  process.send?.({ type: 'ready', url: running.url });
}

main().catch((err: unknown) => {
  process.send?.({ type: 'error', error: (err as Error).stack ?? String(err) });
  process.exit(1);
});
