import { Body, Controller, Get, OnModuleInit, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';

import { Clock } from '../common/clock';
import { Translator, translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { MandatePagesService } from '../mandates/mandate-pages.service';
import { MandatesService } from '../mandates/mandates.service';
import { AppLayout } from '../web/app-layout.service';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { DecisionForm } from '../web/dto/app-forms.dto';
import type { SignedInPerson } from '../web/signed-in-person';
import { AutopayNotices, closedSideOf } from './autopay-notices';
import { CANCELLABLE, ChargeStatus, RecurringCharge } from './recurring-charge.entity';
import { RecurringChargesService } from './recurring-charges.service';

const LIST_LIMIT = 100;
const NOTIFICATIONS_LIMIT = 30;

/** A charge's status in words (autopay.status.*). */
const statusLabel = (tr: Translator, s: ChargeStatus) => tr.t(`autopay.status.${s}`);

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
    this.mandatePages.showFirstDebit(async (mandateId, tr) => {
      const c = await this.charges.findAwaitingRegistration(mandateId);
      if (!c) {
        return null;
      }
      const [v] = await this.views([c], tr);
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
  async page(
    @CurrentPerson() person: SignedInPerson,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ): Promise<void> {
    const rows = await this.charges.listForBuyerWorkspace(person.workspaceId, LIST_LIMIT);
    const views = await this.views(rows.slice(0, LIST_LIMIT), tr);
    const byId = new Map(views.map((v) => [v.id, v]));
    const notifications = (await this.notices.forPerson(rows))
      .slice(0, NOTIFICATIONS_LIMIT)
      .map((n) => ({
        kind: n.kind,
        chargeId: n.chargeId,
        at: tr.ist(n.at),
        ...notificationWords(tr, n.kind, n.at, byId.get(n.chargeId)),
        // The words the webhook event carried (agent-facing, English), under Details.
        sent: n.text,
      }));
    res.render(
      'app/autopay',
      this.layout.page(
        person,
        tr.t('autopay.title'),
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
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ): Promise<void> {
    const charge = await this.charges.findForBuyerWorkspace(person.workspaceId, id);
    if (!charge || !CANCELLABLE.includes(charge.status)) {
      res.redirect(303, '/app/autopay');
      return;
    }
    const [view] = await this.views([charge], tr);
    res.render(
      'app/autopay-cancel',
      this.layout.page(person, tr.t('autopay.cancel.title'), { charge: view }, 'autopay'),
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

  private async views(rows: RecurringCharge[], tr: Translator = translator('en')) {
    const names = await this.mandates.agentNames(
      rows.flatMap((c) => [c.sellerAgentId, c.buyerAgentId]),
    );
    const now = this.clock.now();
    return rows.map((c) => ({
      id: c.id,
      seller: names.get(c.sellerAgentId) ?? c.sellerAgentId,
      buyer: names.get(c.buyerAgentId) ?? c.buyerAgentId,
      amount: tr.rupees(c.amountPaise),
      amountPaise: c.amountPaise,
      description: c.description,
      reason: c.reason,
      upiMandateRef: c.upiMandateRef,
      firstDebit: c.firstDebit,
      withRegistration: c.authorisation === 'with_registration',
      receiptHref: c.receiptId ? `/app/receipts/${c.receiptId}` : null,
      debitAt: tr.ist(c.debitAt),
      debitIn: tr.relative(c.debitAt, now),
      noticeAt: tr.ist(c.noticeAt),
      mandateId: c.mandateId,
      status: c.status,
      statusLabel: statusLabel(tr, c.status),
      authorisation: c.authorisation,
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
      closedSide: closedSideOf(c),
      intentId: c.intentId,
    }));
  }
}

type ChargeView = Awaited<ReturnType<AutopayPagesController['views']>>[number];

/**
 * A notification in the page's language: the same facts as the event's words (seller, amount,
 * time, reason, what to do), without ids or addresses; the event's own words go under Details.
 */
function notificationWords(
  tr: Translator,
  kind: 'pre_debit_notice' | 'post_debit_alert' | 'party_closed',
  at: Date,
  c: ChargeView | undefined,
): { title: string; body: string } {
  if (!c) {
    return { title: tr.t('autopay.title'), body: '' };
  }
  const n = (key: string, vars: Record<string, string> = {}) =>
    tr.t(`autopay.notifications.${key}`, vars);
  const facts = { amount: c.amount, seller: c.seller, reason: c.reason, when: c.debitAt };
  if (kind === 'party_closed') {
    // docs/architecture.md "Party lifecycle": the debit will not happen.
    const side = c.closedSide === 'buyer' ? 'buyer' : 'seller';
    return {
      title: n(`${side}_closed_title`, facts),
      body: n(`${side}_closed_body`, facts),
    };
  }
  if (kind === 'pre_debit_notice') {
    const first = c.firstDebit
      ? c.withRegistration
        ? n('notice_first_with_registration')
        : n('notice_first')
      : c.authorisation === 'none'
        ? null
        : n('notice_authorise');
    return {
      title: n('notice_title', facts),
      body: [n('notice_body', facts), first, n('notice_opt_out')].filter(Boolean).join(' '),
    };
  }
  const when = { ...facts, when: tr.ist(at) };
  if (c.status === 'settled') {
    return {
      title: n('paid_title', when),
      body: [n('paid_body', when), c.receiptHref ? n('paid_receipt') : null, n('grievance')]
        .filter(Boolean)
        .join(' '),
    };
  }
  return {
    title: n('failed_title', when),
    body: [n('failed_body', when), n('not_retried'), n('grievance')].join(' '),
  };
}
