import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { Clock } from '../common/clock';
import { Tx } from '../database/tx';
import { markRegistrationEnded } from '../mandates/mandate-registration-state';
import { MandatesService } from '../mandates/mandates.service';
import { PAYMENT_RAIL, PaymentRail } from '../rails/payment-rail';

/**
 * On the gateway rail a mandate is registered with the gateway as soon as a person authorises it
 * (docs/gateway.md "Going live on the gateway"): an AutoPay token for recurring and one-time mandates
 * (with a recurring mandate's billing cycle), a block for Reserve Pay. The call runs after the
 * authorisation commits; if it fails, the first debit registers the mandate instead. When a person
 * revokes (or declines) the mandate, its AutoPay token is cancelled at the gateway the same way.
 *
 * While the registration after authorisation runs, amendments may not change the mandate's cap or
 * validity (src/mandates/mandate-registration-state.ts; docs/mandates.md "Amendments while the
 * gateway registration is pending"): the token is made for the terms the mandate has now. When the
 * call ends, registered or failed, `mandates.gateway_registration_ended_at` says so, under the
 * mandate's row lock.
 */
@Injectable()
export class MandateRegistration implements OnModuleInit {
  private readonly logger = new Logger(MandateRegistration.name);

  constructor(
    private readonly mandates: MandatesService,
    @Inject(PAYMENT_RAIL) private readonly rail: PaymentRail,
    private readonly tx: Tx,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    const prepare = this.rail.prepareMandate?.bind(this.rail);
    if (prepare) {
      this.mandates.onAuthorised(async (m) => {
        try {
          await this.logged(
            m.id,
            'gateway registration of the mandate failed; its first debit registers it',
            prepare,
          );
        } finally {
          await this.logged(
            m.id,
            'recording the end of the gateway registration failed; amendments wait for its bound',
            (id) => this.tx.run(() => markRegistrationEnded(this.tx, id, this.clock.now())),
          );
        }
      });
    }
    const end = this.rail.endMandate?.bind(this.rail);
    if (end) {
      this.mandates.onEnded((m) =>
        this.logged(
          m.id,
          'cancelling the mandate at the gateway failed; no debit passes the revoked mandate',
          end,
        ),
      );
    }
  }

  /** Runs the rail's call for the mandate; a failure is logged with `why`, never thrown. */
  private async logged(
    mandateId: string,
    why: string,
    call: (mandateId: string) => Promise<void>,
  ): Promise<void> {
    try {
      await call(mandateId);
    } catch (err) {
      this.logger.warn({ mandate_id: mandateId, err: (err as Error).message }, why);
    }
  }
}
