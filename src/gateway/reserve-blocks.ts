import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { Clock } from '../common/clock';
import { Sweeper } from '../common/sweeper/sweeper';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { GatewayRepository } from '../rails/gateway/gateway.repository';
import { GatewayClient, GatewayError } from '../rails/gateway/gateway-client';
import { GATEWAY_CLIENT, gatewayKeys } from '../rails/gateway/gateway-rail';

/**
 * Reserve Pay's end (docs/gateway.md "Reserve Pay"): when a `upi_reserve_pay` mandate is revoked or ends,
 * what is left of its block goes back to the payer. A sweep (RAIL=gateway only) finds live blocks
 * of ended mandates and releases each once (Idempotency-Key from the block id); a block the
 * gateway already released or expired is recorded as the gateway says. Safe on several instances:
 * a repeated release is the same call, and recording the gateway's answer is idempotent.
 */
@Injectable()
export class ReserveBlockReleaser implements OnModuleInit {
  private readonly logger = new Logger(ReserveBlockReleaser.name);

  constructor(
    private readonly tx: Tx,
    private readonly store: GatewayRepository,
    private readonly clock: Clock,
    private readonly sweeper: Sweeper,
    @Inject(GATEWAY_CLIENT) private readonly client: GatewayClient | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.rail === 'gateway' && this.client) {
      this.sweeper.register('reserve-pay-release', () => this.releaseEnded(), { everyMs: 10_000 });
    }
  }

  /** Releases the blocks of ended mandates; returns how many were settled here. */
  async releaseEnded(limit = 20): Promise<number> {
    const client = this.client;
    if (!client) {
      return 0;
    }
    const rows = await this.store.blocksToRelease(this.clock.now(), limit);
    let done = 0;
    for (const row of rows) {
      try {
        let block;
        try {
          block = await client.releaseReserveBlock(
            row.block_id,
            gatewayKeys.reserveRelease(row.block_id),
          );
        } catch (err) {
          if (!(err instanceof GatewayError) || err.retryable) {
            throw err;
          }
          // Already released or expired at the gateway: record what it says.
          block = await client.getReserveBlock(row.block_id);
        }
        if (block.status === 'released' || block.status === 'expired') {
          await this.tx.run(() =>
            this.store.setReserveBlockStatus(block.id, block.status, block.released),
          );
          done++;
        }
      } catch (err) {
        this.logger.warn(
          { block_id: row.block_id, err: (err as Error).message },
          'Reserve Pay release not done; the sweep tries again',
        );
      }
    }
    return done;
  }
}
