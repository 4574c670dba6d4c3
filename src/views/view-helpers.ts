import hbs from 'hbs';
import { formatRupees } from '../common/money';

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
  h.registerHelper('json', (v: unknown) => JSON.stringify(v, null, 2));
  hbs.registerPartials(`${__dirname}/../../views/partials`);
}
