import { SimClock } from './clock';
import { IdGenerator } from './ids';
import { OutcomeControl } from './outcomes';
import { Store } from './store';
import { WebhookDispatcher } from './webhooks';

export interface SimConfig {
  keyId: string;
  keySecret: string;
  webhookSecret: string;
  accountId: string;
}

/** What every part of the simulator shares: settings, clock, ids, state, webhooks, outcomes. */
export class SimCore {
  /** Bumped by reset; work that outlived a reset (a hung attempt) notices and stops. */
  generation = 0;
  origin = '';

  constructor(
    readonly config: SimConfig,
    readonly clock: SimClock,
    readonly ids: IdGenerator,
    readonly store: Store,
    readonly webhooks: WebhookDispatcher,
    readonly outcomes: OutcomeControl,
  ) {}
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
