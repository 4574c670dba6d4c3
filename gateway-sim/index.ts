/**
 * The gateway simulator: a Razorpay-style payment gateway in memory, for tests and local runs
 * (docs/gateway-simulator.md). `startGatewaySimulator()` starts it in-process on a free port;
 * `npm run gateway:sim` starts it on its own (main.ts).
 */
export type { GatewayEngine } from './engine';
export { FAILURES, SIM_VPAS } from './outcomes';
export type { CheckoutSuccess } from './payments';
export type {
  GatewaySimulator,
  GatewaySimulatorControl,
  GatewaySimulatorOptions,
} from './simulator';
export { startGatewaySimulator } from './simulator';
export { feeFor } from './store';
export type { DeliveryLogEntry, WebhookMode } from './webhooks';
