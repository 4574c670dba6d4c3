import { Body, Controller, Get, OnModuleInit, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';

import { Clock } from '../common/clock';
import { formatRupees } from '../common/money';
import { MandatePagesService } from '../mandates/mandate-pages.service';
import { MandatesService } from '../mandates/mandates.service';
import { AppLayout } from '../web/app-layout.service';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { DecisionForm } from '../web/dto/app-forms.dto';
import { formatIst, relativeTo } from '../web/local-time';
import type { SignedInPerson } from '../web/signed-in-person';
import { AutopayNotices } from './autopay-notices';
import { CANCELLABLE, ChargeStatus, RecurringCharge } from './recurring-charge.entity';
import { RecurringChargesService } from './recurring-charges.service';

const LIST_LIMIT = 100;
const NOTIFICATIONS_LIMIT = 30;

const STATUS_LABEL: Record<ChargeStatus, string> = {
  awaiting_authorisation: 'needs your authorisation',
  scheduled: 'scheduled',
  processing: 'being debited',
  settled: 'paid',
  failed: 'failed',
  declined: 'declined',
  cancelled: 'cancelled',
  expired: 'expired',
};

/**
 * {appUrl}/app/autopay: the person's pre-debit notices (docs/recurring.md "Recurring payments (UPI AutoPay)"):
 * every upcoming debit on the workspace's recurring mandates with the merchant, exact amount, debit
 * time (IST), the mandate reference and the seller's reason, an "Opt out of this debit" button
 * (through a confirmation page; `…/cancel` is its earlier name), and a link to authorise the ones
 * that need it; then the recent ones with their outcome and receipt, and the person's
 * notifications (each pre-debit notice and post-debit alert, in the words the webhook event
 * carries). Also gives the mandate authorisation page its first-debit block.
 */
@AppController()
@SignedIn()
@Controller('app/autopay')
export class AutopayPagesController implements OnModuleInit {
  constructor(
    private readonly charges: RecurringChargesService,
    private readonly mandates: MandatesService,
    private readonly layout: AppLayout,
    private readonly clock: Clock,
    private readonly notices: AutopayNotices,
    private readonly mandatePages: MandatePagesService,
  ) {}

  onModuleInit(): void {
    this.layout.registerNav({
      key: 'autopay',
      label: 'app.nav.autopay',
      href: '/app/autopay',
      order: 25,
    });
    this.mandatePages.showFirstDebit(async (mandateId) => {
      const c = await this.charges.findAwaitingRegistration(mandateId);
      if (!c) {
        return null;
      }
      const [v] = await this.views([c]);
      return {
        chargeId: c.id,
        amount: v.amount,
        amountPaise: c.amountPaise,
        debitAt: v.debitAt,
        seller: v.seller,
        reason: c.reason,
      };
    });
  }

  @Get()
  async page(@CurrentPerson() person: SignedInPerson, @Res() res: Response): Promise<void> {
    const rows = await this.charges.listForBuyerWorkspace(person.workspaceId, LIST_LIMIT);
    const views = await this.views(rows.slice(0, LIST_LIMIT));
    const notifications = (await this.notices.forPerson(rows))
      .slice(0, NOTIFICATIONS_LIMIT)
      .map((n) => ({
        kind: n.kind,
        chargeId: n.chargeId,
        at: formatIst(n.at),
        title: n.text.title,
        body: n.text.body,
      }));
    res.render(
      'app/autopay',
      this.layout.page(
        person,
        'AutoPay',
        {
          upcoming: views.filter((v) => v.cancellable),
          past: views.filter((v) => !v.cancellable),
          notifications,
        },
        'autopay',
      ),
    );
  }

  /** Opt out of one debit: the confirmation page (`…/cancel` is the earlier address). */
  @Get(['charges/:id/opt-out', 'charges/:id/cancel'])
  async confirm(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Res() res: Response,
  ): Promise<void> {
    const charge = await this.charges.findForBuyerWorkspace(person.workspaceId, id);
    if (!charge || !CANCELLABLE.includes(charge.status)) {
      res.redirect(303, '/app/autopay');
      return;
    }
    const [view] = await this.views([charge]);
    res.render(
      'app/autopay-cancel',
      this.layout.page(person, 'Opt out of this debit?', { charge: view }, 'autopay'),
    );
  }

  /** The person's opt-out (signed in, CSRF-checked): this debit only; the mandate stays active. */
  @Post(['charges/:id/opt-out', 'charges/:id/cancel'])
  async cancel(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: DecisionForm,
    @Res() res: Response,
  ): Promise<void> {
    if (form.confirm !== 'yes') {
      res.redirect(303, `/app/autopay/charges/${encodeURIComponent(id)}/opt-out`);
      return;
    }
    await this.charges.cancelByPerson(person.workspaceId, id, person.personId);
    res.redirect(303, '/app/autopay');
  }

  private async views(rows: RecurringCharge[]) {
    const names = await this.mandates.agentNames(
      rows.flatMap((c) => [c.sellerAgentId, c.buyerAgentId]),
    );
    const now = this.clock.now();
    return rows.map((c) => ({
      id: c.id,
      seller: names.get(c.sellerAgentId) ?? c.sellerAgentId,
      buyer: names.get(c.buyerAgentId) ?? c.buyerAgentId,
      amount: formatRupees(c.amountPaise),
      description: c.description,
      reason: c.reason,
      upiMandateRef: c.upiMandateRef,
      firstDebit: c.firstDebit,
      withRegistration: c.authorisation === 'with_registration',
      receiptHref: c.receiptId ? `/app/receipts/${c.receiptId}` : null,
      debitAt: formatIst(c.debitAt),
      debitIn: relativeTo(c.debitAt, now),
      noticeAt: formatIst(c.noticeAt),
      mandateId: c.mandateId,
      status: c.status,
      statusLabel: STATUS_LABEL[c.status],
      needsAuthorisation: c.status === 'awaiting_authorisation',
      afa: c.authorisation === 'upi_afa',
      approvalHref:
        c.authorisation === 'with_registration'
          ? `/app/mandates/${c.mandateId}/authorize`
          : c.approvalId
            ? `/app/approvals/${c.approvalId}`
            : null,
      cancellable: CANCELLABLE.includes(c.status),
      failureReason: c.failureReason,
      intentId: c.intentId,
    }));
  }
}
