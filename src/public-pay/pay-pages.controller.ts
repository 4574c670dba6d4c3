import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import type { Response } from 'express';

import { AppController } from '../web/current-person.decorator';
import { attempt } from '../web/form-outcome';
import { PayPageFormDto } from './dto/public-pay.dto';
import { PayAssets } from './pay-assets';
import { PayFormGuard } from './pay-form.guard';
import { pagePathOf, payPage, statusPage } from './pay-page.presenter';
import { PayPageHeadersInterceptor } from './pay-page-headers.interceptor';
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
    private readonly assets: PayAssets,
  ) {}

  @Get('pay/:quote_id')
  @UseInterceptors(PayPageHeadersInterceptor)
  async page(@Param('quote_id') quoteId: string, @Res() res: Response): Promise<void> {
    const view = await this.pay.findView(quoteId);
    if (!view) {
      return notFound(res);
    }
    res.render('pay/page', payPage(view));
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
  ): Promise<void> {
    const pageUrl = pagePathOf(quoteId);
    const started = await attempt(this.pay.startCheckout(quoteId));
    if (!started.ok) {
      if (started.status === 404) {
        return notFound(res);
      }
      // Not payable (any more): the page says why; a checkout the form named shows its outcome.
      return res.redirect(303, form.checkout_id ? statusPath(pageUrl, form.checkout_id) : pageUrl);
    }
    await attempt(this.pay.completeCheckout(quoteId, started.value.id, form.outcome));
    res.redirect(303, statusPath(pageUrl, started.value.id));
  }

  @Get('pay/:quote_id/status')
  @UseInterceptors(PayPageHeadersInterceptor)
  async status(
    @Param('quote_id') quoteId: string,
    @Query('checkout') checkoutId: unknown,
    @Res() res: Response,
  ): Promise<void> {
    const view = await this.pay.findView(quoteId);
    if (!view || typeof checkoutId !== 'string') {
      return notFound(res);
    }
    const checkout = await attempt(this.pay.getCheckout(quoteId, checkoutId));
    if (!checkout.ok) {
      return notFound(res);
    }
    res.render('pay/status', statusPage(view, checkout.value));
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
function notFound(res: Response): void {
  res.status(404).render('pay/not-found', { title: 'Payment link not found' });
}
