import hbs from 'hbs';

import { formatRupees } from '../common/money';
import { formatIst } from '../web/local-time';

let registered = false;

/** All Handlebars helpers, registered once. Templates format; they do not decide. */
export function registerViewHelpers(): void {
  if (registered) {
    return;
  }
  registered = true;
  const h = hbs.handlebars;
  h.registerHelper('rupees', (paise: number) => formatRupees(paise));
  h.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  h.registerHelper('iso', (d: Date | string | null) => (d ? new Date(d).toISOString() : ''));
  /** Times for people: India time, "3 Mar 2026, 14:05 IST". */
  h.registerHelper('ist', (d: Date | string | null) => (d ? formatIst(d) : ''));
  h.registerHelper('json', (v: unknown) => JSON.stringify(v, null, 2));
  hbs.registerPartials(`${__dirname}/../../views/partials`);
}
