import hbs from 'hbs';

let registered = false;

/** All Handlebars helpers, registered once. Templates format; they do not decide. */
export function registerViewHelpers(): void {
  if (registered) {
    return;
  }
  registered = true;
  const h = hbs.handlebars;
  h.registerHelper('rupees', (paise: number) => {
    const sign = paise < 0 ? '-' : '';
    const abs = Math.abs(paise);
    const rupees = Math.floor(abs / 100).toLocaleString('en-IN');
    return `${sign}₹${rupees}.${String(abs % 100).padStart(2, '0')}`;
  });
  h.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  h.registerHelper('iso', (d: Date | string | null) => (d ? new Date(d).toISOString() : ''));
  h.registerHelper('json', (v: unknown) => JSON.stringify(v, null, 2));
  hbs.registerPartials(`${__dirname}/../../views/partials`);
}
