import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Res,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import type { Response } from 'express';

import type { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { finished } from '../database/tx';
import { AppController } from '../web/current-person.decorator';
import { attempt } from '../web/form-outcome';
import { PayPageFormDto } from './dto/public-pay.dto';
import { PayAssets } from './pay-assets';
import { PayFormGuard } from './pay-form.guard';
import { pagePathOf, payPage, statusPage } from './pay-page.presenter';
import { PayPageHeadersInterceptor } from './pay-page-headers.interceptor';
import { PaymentLinksService } from './payment-links.service';
import { PublicPayService } from './public-pay.service';

/**
 * The hosted payment pages under {app_url} (spec §4): `pay/<quote_id>` and
 * `pay/<quote_id>/status?checkout=<id>`. No sign-in; server-rendered; the sandbox panel's forms
 * work without JavaScript (POST → 303 → GET). Form protection: PayFormGuard.
 */
@AppController()
@Controller('app')
export class PayPagesController {
  constructor(
    private readonly pay: PublicPayService,
    private readonly links: PaymentLinksService,
    private readonly assets: PayAssets,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('pay/:quote_id')
  @UseInterceptors(PayPageHeadersInterceptor)
  async page(
    @Param('quote_id') quoteId: string,
    @Res() res: Response,
    @PageLanguage() tr: Translator,
  ): Promise<void> {
    const view = await this.pay.findView(quoteId);
    if (!view) {
      return notFound(res, tr);
    }
    res.render('pay/page', {
      ...payPage(view, tr),
      // Gateway rail: the widget's script, from the gateway's origin (the CSP allows that origin).
      gatewayScript: this.config.gateway
        ? `${this.config.gateway.checkoutUrl}/v1/checkout.js`
        : null,
    });
  }

  /**
   * Gateway rail, redirect mode: the gateway POSTs the payment's three fields here
   * ({app_url}/pay/<quote_id>/return). They are checked exactly as the widget's are
   * (PublicPayService.completeWithGateway: signature against the stored order, then the payment
   * fetched from the gateway) and the person lands on the status page. Cross-site by nature (the
   * post comes from the gateway's page), so no PayFormGuard: the signature is the authority. The
   * answer only ever redirects to a path of our own origin, whatever was posted.
   */
  @Post('pay/:quote_id/return')
  @HttpCode(303)
  @UseInterceptors(PayPageHeadersInterceptor)
  async gatewayReturn(
    @Param('quote_id') quoteId: string,
    @Body() form: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const pageUrl = pagePathOf(quoteId);
    const field = (name: string) => (typeof form?.[name] === 'string' ? form[name] : '');
    const orderId = field('gateway_order_id');
    const checkoutId = /^order_[A-Za-z0-9]{14}$/.test(orderId)
      ? await this.pay.checkoutOfGatewayOrder(quoteId, orderId)
      : null;
    if (!checkoutId) {
      return res.redirect(303, pageUrl);
    }
    await attempt(
      this.pay
        .completeWithGateway(quoteId, checkoutId, {
          gateway_payment_id: field('gateway_payment_id'),
          gateway_order_id: orderId,
          gateway_signature: field('gateway_signature'),
        })
        .then(finished),
    );
    res.redirect(303, statusPath(pageUrl, checkoutId));
  }

  /** Someone opening the return address: back to the payment page. */
  @Get('pay/:quote_id/return')
  @UseInterceptors(PayPageHeadersInterceptor)
  returnPage(@Param('quote_id') quoteId: string, @Res() res: Response): void {
    res.redirect(303, pagePathOf(quoteId));
  }

  /** The sandbox panel: start (or reuse) the live checkout and complete it with the outcome. */
  @Post('pay/:quote_id')
  @HttpCode(303)
  @UseGuards(PayFormGuard)
  @UseInterceptors(PayPageHeadersInterceptor)
  async submit(
    @Param('quote_id') quoteId: string,
    @Body() form: PayPageFormDto,
    @Res() res: Response,
    @PageLanguage() tr: Translator,
  ): Promise<void> {
    const pageUrl = pagePathOf(quoteId);
    const started = await attempt(this.pay.startCheckout(quoteId).then(finished));
    if (!started.ok) {
      if (started.status === 404) {
        return notFound(res, tr);
      }
      // Not payable (any more): the page says why; a checkout the form named shows its outcome.
      return res.redirect(303, form.checkout_id ? statusPath(pageUrl, form.checkout_id) : pageUrl);
    }
    // Its own transaction (this controller holds none), then the rail, then the answer.
    await attempt(
      this.pay.completeCheckout(quoteId, started.value.id, form.outcome).then(finished),
    );
    res.redirect(303, statusPath(pageUrl, started.value.id));
  }

  /**
   * The status page. A payment link's callback_url (docs/gateway.md "Payment links") is this page too: the
   * gateway sends the payer here with its signed fields in the query, which settle the link's
   * payment (PaymentLinksService.settleFromCallback checks them; anything unverified is ignored and
   * the webhook settles it), and the person is redirected (303) to the same page without them.
   */
  @Get('pay/:quote_id/status')
  @UseInterceptors(PayPageHeadersInterceptor)
  async status(
    @Param('quote_id') quoteId: string,
    @Query() query: Record<string, unknown>,
    @Res() res: Response,
    @PageLanguage() tr: Translator,
  ): Promise<void> {
    const checkoutId = query.checkout;
    const view = await this.pay.findView(quoteId);
    if (!view || typeof checkoutId !== 'string') {
      return notFound(res, tr);
    }
    if (query.gateway_signature !== undefined) {
      const field = (name: string) => (typeof query[name] === 'string' ? query[name] : '');
      await this.links.settleFromCallback(quoteId, checkoutId, {
        gateway_payment_id: field('gateway_payment_id'),
        gateway_payment_link_id: field('gateway_payment_link_id'),
        gateway_payment_link_reference_id: field('gateway_payment_link_reference_id'),
        gateway_payment_link_status: field('gateway_payment_link_status'),
        gateway_signature: field('gateway_signature'),
      });
      return res.redirect(303, statusPath(pagePathOf(quoteId), checkoutId));
    }
    const checkout = await attempt(this.pay.getCheckout(quoteId, checkoutId));
    if (!checkout.ok) {
      return notFound(res, tr);
    }
    const download = query.download === '1' && checkout.value.status === 'paid';
    if (download) {
      // The same receipt, saved as a file (a person keeps it; no script runs from a saved file).
      const name = (checkout.value.payment_reference ?? checkout.value.id).replace(/[^\w-]/g, '');
      res.setHeader('Content-Disposition', `attachment; filename="receipt-${name}.html"`);
    }
    res.render('pay/status', statusPage(view, checkout.value, { download }, tr));
  }

  @Get('assets/pay.css')
  @Header('Content-Type', 'text/css; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @Header('X-Content-Type-Options', 'nosniff')
  css(): string {
    return this.assets.css;
  }

  @Get('assets/pay.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @Header('X-Content-Type-Options', 'nosniff')
  js(): string {
    return this.assets.js;
  }
}

function statusPath(pageUrl: string, checkoutId: string): string {
  return `${pageUrl}/status?checkout=${encodeURIComponent(checkoutId)}`;
}

/** The same page for an unknown, malformed or foreign id. */
function notFound(res: Response, tr: Translator): void {
  res.status(404).render('pay/not-found', { title: tr.t('pay.not_found.title') });
}
