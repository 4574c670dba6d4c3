import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { MandatesService } from '../mandates/mandates.service';
import { PAYMENT_RAIL, PaymentRail } from '../rails/payment-rail';

/**
 * On the gateway rail a mandate is registered with the gateway as soon as a person authorises it
 * (docs/gateway.md "Going live on the gateway"): an AutoPay token for recurring and one-time mandates
 * (with a recurring mandate's billing cycle), a block for Reserve Pay. The call runs after the
 * authorisation commits; if it fails, the first debit registers the mandate instead. When a person
 * revokes (or declines) the mandate, its AutoPay token is cancelled at the gateway the same way.
 */
@Injectable()
export class MandateRegistration implements OnModuleInit {
  private readonly logger = new Logger(MandateRegistration.name);

  constructor(
    private readonly mandates: MandatesService,
    @Inject(PAYMENT_RAIL) private readonly rail: PaymentRail,
  ) {}

  onModuleInit(): void {
    const prepare = this.rail.prepareMandate?.bind(this.rail);
    if (prepare) {
      this.mandates.onAuthorised((m) =>
        this.logged(
          m.id,
          'gateway registration of the mandate failed; its first debit registers it',
          prepare,
        ),
      );
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
