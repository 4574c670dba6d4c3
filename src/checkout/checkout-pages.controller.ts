import { Controller, Get, Header, Param, Render } from '@nestjs/common';

import type { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { AppController } from '../web/current-person.decorator';
import { OrderPage, OrderPageService } from './order-page.service';

/**
 * Public pages under {app_url} that ACP sessions link to: the order permalink and the legal pages
 * (links[] terms_of_use / privacy_policy must resolve). No session needed.
 */
@AppController()
@Controller('app')
export class CheckoutPagesController {
  constructor(private readonly orders: OrderPageService) {}

  @Get('orders/:order_id')
  // The id is the only secret: keep the page out of caches, search engines and Referer headers.
  @Header('Cache-Control', 'no-store')
  @Header('X-Robots-Tag', 'noindex')
  @Header('Referrer-Policy', 'no-referrer')
  @Render('checkout/order')
  order(@Param('order_id') orderId: string, @PageLanguage() tr: Translator): Promise<OrderPage> {
    return this.orders.orderPage(orderId, tr);
  }

  // In the reader's language (lang cookie or Accept-Language, docs/languages.md): a cached copy
  // would answer the language switch with the page it just left, so the browser revalidates.
  @Get('legal/terms')
  @Header('Cache-Control', 'private, no-cache')
  @Render('legal/terms')
  terms() {
    return { title: 'Terms of use' };
  }

  @Get('legal/privacy')
  @Header('Cache-Control', 'private, no-cache')
  @Render('legal/privacy')
  privacy() {
    return { title: 'Privacy policy' };
  }
}
