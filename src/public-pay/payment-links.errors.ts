import { AppError } from '../common/errors/app-error';

/** Payment link codes (docs/gateway.md "Payment links"). */
export const paymentLinkErrors = {
  /** Payment links are the gateway's; the sandbox rail has none (the hosted page is the way). */
  needGateway: () =>
    new AppError(
      409,
      'invalid_request',
      'payment_links_need_gateway',
      "Payment links need the payment gateway (RAIL=gateway); on the sandbox rail send the quote's pay_url instead",
    ),
  notFound: () =>
    new AppError(
      404,
      'invalid_request',
      'payment_link_not_found',
      'This quote has no payment link',
    ),
  /** The buyer's rules would refuse a payment of this quote now (e.g. its daily cap). */
  paymentRefused: () =>
    new AppError(
      409,
      'invalid_request',
      'payment_refused',
      "The buyer's spending rules do not allow this payment right now (for example its daily limit)",
    ),
  /** The gateway refused to create the link (a 4xx); nothing is live. */
  gatewayRefused: (why: string) =>
    new AppError(
      409,
      'invalid_request',
      'payment_link_refused',
      `The gateway refused the payment link: ${why}`,
    ),
};
