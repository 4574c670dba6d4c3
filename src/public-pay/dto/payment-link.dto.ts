/**
 * Create a quote's payment link: no fields. The body is closed (any field, e.g. an amount or an
 * expiry, is 400): the link is always for the quote's amount and expires with the quote.
 */
export class CreatePaymentLinkDto {}
