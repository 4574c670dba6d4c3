/**
 * `npm run gateway:sim`: the gateway simulator on its own, for local runs against the service
 * (docs/gateway-simulator.md "Running it"). Its settings come from the environment; this file is
 * the simulator's only reader of process.env (the service reads its own in src/config).
 */
import { startGatewaySimulator } from './simulator';

const env = process.env;
const settings = {
  port: Number(env.GATEWAY_SIM_PORT ?? 4010),
  keyId: env.GATEWAY_KEY_ID ?? 'rzp_test_simulator',
  keySecret: env.GATEWAY_KEY_SECRET ?? 'sim_key_secret',
  webhookSecret: env.GATEWAY_WEBHOOK_SECRET ?? 'sim_webhook_secret',
  webhookUrl: env.GATEWAY_SIM_WEBHOOK_URL || null,
  /** Optional: keep the state in this file across restarts (store.ts StateFile). */
  stateFile: env.GATEWAY_SIM_STATE_FILE || undefined,
};

async function main(): Promise<void> {
  if (!Number.isInteger(settings.port) || settings.port < 0 || settings.port > 65_535) {
    throw new Error(`GATEWAY_SIM_PORT must be a port number, not "${env.GATEWAY_SIM_PORT}"`);
  }
  const sim = await startGatewaySimulator({
    ...settings,
    host: env.GATEWAY_SIM_HOST ?? '127.0.0.1',
    onError: (err) => console.error('gateway simulator error:', err),
  });
  const usingDefault = (name: string) => (env[name] ? '' : ' (default)');
  console.log(`Gateway simulator on ${sim.url}`);
  console.log(`  GATEWAY_SIM_PORT        ${sim.port}${usingDefault('GATEWAY_SIM_PORT')}`);
  console.log(`  GATEWAY_KEY_ID          ${settings.keyId}${usingDefault('GATEWAY_KEY_ID')}`);
  console.log(
    `  GATEWAY_KEY_SECRET      ${env.GATEWAY_KEY_SECRET ? '(set, not shown)' : `${settings.keySecret} (default, test only)`}`,
  );
  console.log(
    `  GATEWAY_WEBHOOK_SECRET  ${env.GATEWAY_WEBHOOK_SECRET ? '(set, not shown)' : `${settings.webhookSecret} (default, test only)`}`,
  );
  console.log(
    `  GATEWAY_SIM_WEBHOOK_URL ${settings.webhookUrl ?? '(none: events wait until one is set)'}`,
  );
  console.log(`  GATEWAY_SIM_STATE_FILE  ${settings.stateFile ?? '(none: state in memory only)'}`);
  console.log(`  widget:  ${sim.url}/v1/checkout.js   control API: ${sim.url}/__sim/state`);
  const stop = () => {
    void sim.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
