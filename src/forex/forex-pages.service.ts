import { Inject, Injectable } from '@nestjs/common';

import type { Translator, Vars } from '../common/i18n/catalogue';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { AppLayout } from '../web/app-layout.service';
import { errorWords } from '../web/error-words';
import type { FormOutcome } from '../web/form-outcome';
import type { SignedInPerson } from '../web/signed-in-person';
import { currencyInfo } from './currencies';
import type { ForexRate } from './entities/forex-rate.entity';
import { daysBetween, financialYearOf, istDate } from './financial-year';
import { formatRate, rateToFeedText } from './forex-amounts';
import type { ChecklistItem } from './forex-checklist';
import { ForexDeskService, PersonActor } from './forex-desk.service';
import { EDITABLE_STATUSES } from './forex-file.state';
import { formatUsdCents } from './forex-format';
import { ForexPartnerRepository } from './forex-partner.repository';
import {
  cashLimitFor,
  KIND_RULES,
  LRS_LIMIT_USD_CENTS,
  MAX_DAYS_BEFORE_DEPARTURE,
  requiredDocuments,
} from './forex-rules';
import type { FileFacts } from './forex-views';

/** A form's refusal as the page words it (the code and param of the AppError, never its English). */
export type PageRefusal = Omit<Extract<FormOutcome<unknown>, { ok: false }>, 'ok'>;

/** "USD 250,000" for whole amounts, "USD 1,500.50" otherwise. */
function usd(cents: number): string {
  return formatUsdCents(cents).replace(/\.00$/, '');
}

const sameName = (a: string, b: string) =>
  a.trim().replace(/\s+/g, ' ').toLowerCase() === b.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Page models of the declaration pages and the dealer desk (docs/forex.md "People's pages"):
 * formatting only, no decisions. Every word comes from the forex catalogue in the page's language
 * (docs/languages.md); times are IST in words, countries by name.
 */
@Injectable()
export class ForexPagesService {
  constructor(
    private readonly desk: ForexDeskService,
    private readonly partners: ForexPartnerRepository,
    private readonly layout: AppLayout,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  actor(person: SignedInPerson): PersonActor {
    return { personId: person.personId, workspaceId: person.workspaceId, name: person.name };
  }

  async declarations(tr: Translator, person: SignedInPerson) {
    const files = await this.desk.filesOfPerson(this.actor(person));
    return this.layout.page(
      person,
      tr.t('forex.titles.declarations'),
      {
        waiting: files
          .filter((f) => f.status === 'awaiting_declaration')
          .map((f) => this.card(tr, f)),
        others: files
          .filter((f) => f.status !== 'awaiting_declaration')
          .map((f) => this.card(tr, f)),
      },
      'forex-declarations',
    );
  }

  async declaration(
    tr: Translator,
    person: SignedInPerson,
    fileId: string,
    refusal?: PageRefusal | 'unticked',
  ) {
    const f = await this.desk.fileOfPerson(this.actor(person), fileId);
    const file = this.card(tr, f);
    return this.layout.page(
      person,
      tr.t('forex.titles.declaration', { kind: file.kindLabel, destination: file.destination }),
      {
        file,
        declaration: this.declarationWords(tr, person, f),
        error: refusal ? this.refusalText(tr, refusal) : null,
      },
      'forex-declarations',
    );
  }

  async queue(tr: Translator, person: SignedInPerson) {
    const q = await this.desk.queue(this.actor(person));
    return this.layout.page(
      person,
      tr.t('forex.titles.desk'),
      {
        partner: { name: q.partner.name, licence: q.partner.licenceNumber },
        waiting: q.waiting.map((f) => this.card(tr, f)),
        decided: q.decided.map((f) => this.card(tr, f)),
      },
      'forex-desk',
    );
  }

  async deskFile(tr: Translator, person: SignedInPerson, fileId: string, refusal?: PageRefusal) {
    const f = await this.desk.deskFile(this.actor(person), fileId);
    const file = this.card(tr, f);
    return this.layout.page(
      person,
      tr.t('forex.titles.desk_file', { traveller: file.traveller }),
      { file, error: refusal ? this.refusalText(tr, refusal) : null },
      'forex-desk',
    );
  }

  async rates(
    tr: Translator,
    person: SignedInPerson,
    error?: { currency: string; refusal: PageRefusal },
  ) {
    const partner = await this.desk.partnerOfDealer(this.actor(person));
    const rows = await this.partners.rates(partner.id);
    return this.layout.page(
      person,
      tr.t('forex.titles.rates'),
      {
        partner: { name: partner.name, licence: partner.licenceNumber },
        rates: rows.map((r) => this.rateRow(tr, r, error)),
      },
      'forex-desk',
    );
  }

  /** What a refused form says, by the refusal's code (the API's English message is not shown). */
  refusalText(tr: Translator, refusal: PageRefusal | 'unticked'): string {
    if (refusal === 'unticked') {
      return tr.t('forex.errors.unticked');
    }
    switch (refusal.code) {
      case 'aadhaar_not_collected':
        return tr.t('forex.errors.aadhaar');
      case 'declaration_expired':
        return tr.t('forex.errors.declaration_expired');
      case 'forex_file_state':
        return tr.t('forex.errors.file_state');
      case 'missing':
        return tr.t(
          refusal.param === 'deal_reference'
            ? 'forex.errors.deal_reference_missing'
            : 'forex.errors.note_missing',
        );
      case 'invalid_rate':
        return tr.t(
          refusal.param === 'buy' ? 'forex.errors.buy_above_sell' : 'forex.errors.rate_format',
        );
      case 'unsupported_currency':
        return tr.t('forex.errors.unsupported_currency');
      default:
        return errorWords(tr, refusal).message;
    }
  }

  private rateRow(
    tr: Translator,
    r: ForexRate,
    error?: { currency: string; refusal: PageRefusal },
  ) {
    const per = currencyInfo(r.currency)?.feedQuotedPer ?? 1;
    return {
      currency: r.currency,
      currencyName: this.currencyName(tr, r.currency),
      per,
      perLabel: tr.t(per === 100 ? 'forex.rates.per_100' : 'forex.rates.per_unit'),
      notesBuy: rateToFeedText(r.notesBuy, per),
      notesSell: rateToFeedText(r.notesSell, per),
      cardBuy: rateToFeedText(r.cardBuy, per),
      cardSell: rateToFeedText(r.cardSell, per),
      setLine: tr.t(r.setBy === 'seed' ? 'forex.rates.set_by_seed' : 'forex.rates.set_by_dealer', {
        time: tr.ist(r.setAt),
      }),
      error: error && error.currency === r.currency ? this.refusalText(tr, error.refusal) : null,
    };
  }

  private currencyName(tr: Translator, code: string): string {
    try {
      return new Intl.DisplayNames([tr.htmlLang], { type: 'currency' }).of(code) ?? code;
    } catch {
      return code;
    }
  }

  /**
   * The words of the declaration. The declarant is always the signed-in person (the file's person,
   * whose id the receipt records with `form_a2_lrs_v1`); when the traveller named on the file is
   * someone else, the page says so and on whose behalf the person declares.
   */
  private declarationWords(tr: Translator, person: SignedInPerson, f: FileFacts) {
    const rule = KIND_RULES[f.file.kind];
    const me = person.name;
    const traveller = f.file.travellerName;
    const company = f.file.companyName ?? '';
    const forCompany = f.file.kind === 'corporate_travel';
    const own = !forCompany && sameName(me, traveller);
    const purpose = `${f.file.purposeCode} (${this.purposeLabel(tr, f.file.purposeCode)})`;
    const v: Vars = {
      me,
      traveller,
      company,
      purpose,
      pan: f.file.panMasked,
      limit: usd(LRS_LIMIT_USD_CENTS),
      tcs: f.quote ? tr.rupees(f.quote.tcsPaise) : '',
      after: f.quote ? formatUsdCents(f.lrsPriorUsdCents + f.quote.usdEquivalentCents) : '',
    };
    const who = forCompany ? 'company' : own ? 'own' : 'behalf';
    const points: string[] = [];
    if (rule.lrs) {
      points.push(tr.t(`forex.declaration.lrs_${who}`, v));
      if (f.quote) {
        points.push(tr.t('forex.declaration.lrs_with_this_file', v));
      }
      points.push(tr.t('forex.declaration.purpose_allowed', v));
    } else if (f.file.kind === 'buy_back') {
      points.push(tr.t(`forex.declaration.buy_back_${who === 'own' ? 'own' : 'behalf'}`, v));
    } else {
      points.push(tr.t('forex.declaration.company_travel', v));
    }
    points.push(tr.t(`forex.declaration.pan_${who}`, v));
    if (rule.tcs && f.quote) {
      points.push(tr.t('forex.declaration.tcs', v));
    }
    return {
      declarant: me,
      /** Whose behalf and why, when the declarant is not the traveller; null when it is. */
      behalf: own ? null : tr.t(`forex.declaration.why_${who}`, v),
      opening: tr.t(`forex.declaration.opening_${who}`, v),
      points,
      confirmLabel: tr.t('forex.declaration.confirm_label', {
        label: tr.t(`forex.declaration_label.${f.file.kind}`),
      }),
      dueLine: f.file.declarationDueAt
        ? tr.t('forex.declaration.due', { time: tr.ist(f.file.declarationDueAt) })
        : null,
    };
  }

  private purposeLabel(tr: Translator, code: string): string {
    const key = `forex.purpose.${code}`;
    const label = tr.t(key);
    return label === key ? code : label;
  }

  /** The TCS threshold the file's quote used, else the configured one for its financial year. */
  private tcsThresholdPaise(f: FileFacts): number | null {
    if (f.quote?.tcs) {
      return f.quote.tcs.thresholdPaise;
    }
    const year = f.quote?.financialYear ?? financialYearOf(f.now);
    return this.config.forexTcsTable[year]?.thresholdPaise ?? null;
  }

  /** One file as the person and the dealer read it. */
  card(tr: Translator, f: FileFacts) {
    const rule = KIND_RULES[f.file.kind];
    const q = f.quote;
    const purposeLabel = this.purposeLabel(tr, f.file.purposeCode);
    const threshold = this.tcsThresholdPaise(f);
    const destination = tr.country(f.file.destinationCountry);
    return {
      id: f.file.id,
      status: f.status,
      statusLabel: tr.t(`forex.status.${f.status}`),
      awaiting: f.status === 'awaiting_declaration',
      onDeskOpen: f.status === 'submitted',
      kindLabel: tr.t(`forex.kind.${f.file.kind}`),
      purposeCode: f.file.purposeCode,
      purposeLabel,
      traveller: f.file.travellerName,
      beneficiary: f.file.beneficiaryName,
      company: f.file.companyName,
      destination,
      travelDates: f.file.departureDate
        ? f.file.returnDate
          ? tr.t('forex.facts.travel_dates', {
              from: tr.istDate(f.file.departureDate),
              to: tr.istDate(f.file.returnDate),
            })
          : tr.istDate(f.file.departureDate)
        : null,
      panMasked: f.file.panMasked,
      notes: f.file.notes,
      partner: f.partner.name,
      declarationLabel: tr.t(`forex.declaration_label.${f.file.kind}`),
      dueLine: f.file.declarationDueAt
        ? tr.t('forex.declarations.confirm_by', { time: tr.ist(f.file.declarationDueAt) })
        : null,
      declaredAt: f.file.declaredAt ? tr.ist(f.file.declaredAt) : null,
      explain: {
        purpose: tr.t('forex.explain.purpose', {
          code: f.file.purposeCode,
          purpose: purposeLabel,
        }),
        lrs: rule.lrs ? tr.t('forex.explain.lrs', { limit: usd(LRS_LIMIT_USD_CENTS) }) : null,
        tcs: rule.tcs
          ? threshold !== null
            ? tr.t('forex.explain.tcs', { threshold: tr.rupees(threshold) })
            : tr.t('forex.explain.tcs_no_threshold')
          : null,
        formA2: tr.t('forex.explain.form_a2'),
      },
      quote: q
        ? {
            id: q.id,
            lines: q.lines.map((l) => ({
              currency: l.currency,
              currencyName: this.currencyName(tr, l.currency),
              product: tr.t(`forex.product.${l.product}`),
              amount: l.foreign_amount,
              rate: formatRate(l.rate),
              rupeeAmount: tr.rupees(l.rupees_paise),
            })),
            rupeeAmount: tr.rupees(q.rupeesPaise),
            fee: tr.rupees(q.feePaise),
            tcs: tr.rupees(q.tcsPaise),
            total: tr.rupees(q.totalPaise),
            pays: q.direction === 'person_pays',
            lockedLine: tr.t('forex.facts.locked_until', { time: tr.ist(q.rateLockedUntil) }),
            financialYear: q.financialYear,
          }
        : null,
      lrs:
        rule.lrs && q
          ? tr.t('forex.facts.lrs_line', {
              year: q.financialYear,
              before: formatUsdCents(f.lrsPriorUsdCents),
              thisFile: formatUsdCents(q.usdEquivalentCents),
              after: formatUsdCents(f.lrsPriorUsdCents + q.usdEquivalentCents),
              limit: formatUsdCents(LRS_LIMIT_USD_CENTS),
            })
          : null,
      lrsBefore: rule.lrs && q ? formatUsdCents(f.lrsPriorUsdCents) : null,
      checklist: f.checklist.items.map((i) => ({
        key: i.key,
        status: i.status,
        statusLabel: tr.t(`forex.checklist.status.${i.status}`),
        ...this.checklistWords(tr, f, i),
        tone:
          i.status === 'done'
            ? 'good'
            : i.status === 'failed' || i.status === 'missing'
              ? 'bad'
              : i.status === 'pending'
                ? 'warn'
                : '',
      })),
      documents: f.documents.map((d) => ({
        id: d.id,
        kind: tr.t(`forex.document_kind.${d.kind}`),
        type: tr.t(
          d.contentType === 'application/pdf'
            ? 'forex.documents.type_pdf'
            : d.contentType === 'image/png'
              ? 'forex.documents.type_png'
              : 'forex.documents.type_jpeg',
        ),
        size: tr.t('forex.documents.size', {
          count: d.sizeBytes,
          size: d.sizeBytes.toLocaleString('en-IN'),
        }),
        sha256: d.sha256,
        filename: d.filename,
      })),
      dealerNotes: f.file.dealerNotes.map((n) => ({
        line: tr.t(`forex.dealer_notes.${n.action}`, { dealer: n.dealer_name, time: tr.ist(n.at) }),
        note: n.note,
      })),
      dealReference: f.file.dealReference,
      receiptId: f.file.receiptId,
    };
  }

  /**
   * A checklist item in the page's language, from the same facts the checklist was built from
   * (forex-checklist.ts decides the status; the words here only say it).
   */
  private checklistWords(
    tr: Translator,
    f: FileFacts,
    i: ChecklistItem,
  ): { label: string; detail: string } {
    const q = f.status === 'returned' ? null : f.quote;
    const beforeSubmit = EDITABLE_STATUSES.includes(f.status);
    const doc = requiredDocuments(f.file.kind, f.file.purposeCode).find((r) => r.key === i.key);
    if (doc) {
      return {
        label: tr.t(`forex.checklist.doc.${doc.key}`),
        detail:
          i.status === 'done'
            ? tr.t('forex.checklist.uploaded')
            : tr.t('forex.checklist.upload', {
                kinds: doc.kinds
                  .map((k) => tr.t(`forex.document_kind.${k}`))
                  .join(tr.t('forex.checklist.or')),
              }),
      };
    }
    switch (i.key) {
      case 'pan':
        return {
          label: 'PAN',
          detail: tr.t('forex.checklist.pan', { pan: f.file.panMasked }),
        };
      case 'departure_window': {
        const date = f.file.departureDate ?? '';
        const days = daysBetween(istDate(f.now), date);
        return {
          label: tr.t('forex.checklist.departure_window', { count: MAX_DAYS_BEFORE_DEPARTURE }),
          detail:
            days < 0
              ? tr.t('forex.checklist.departed', { date: tr.istDate(date) })
              : tr.t('forex.checklist.departs', { date: tr.istDate(date), count: days }),
        };
      }
      case 'quote': {
        const label = tr.t('forex.checklist.quote');
        if (!q) {
          return {
            label,
            detail: tr.t(
              f.status === 'returned'
                ? 'forex.checklist.quote_returned'
                : 'forex.checklist.quote_missing',
            ),
          };
        }
        const live = f.now.getTime() < q.rateLockedUntil.getTime();
        return {
          label,
          detail: !beforeSubmit
            ? tr.t('forex.checklist.quote_submitted')
            : tr.t(live ? 'forex.checklist.quote_live' : 'forex.checklist.quote_lapsed', {
                time: tr.ist(q.rateLockedUntil),
              }),
        };
      }
      case 'cash_limit': {
        const cash = cashLimitFor(f.file.destinationCountry, f.file.purposeCode);
        const dest = f.file.destinationCountry;
        const reason =
          cash.usdCents !== null
            ? tr.t(
                dest === 'IQ' || dest === 'LY'
                  ? 'forex.checklist.cash_iraq_libya'
                  : 'forex.checklist.cash_standard',
                { limit: usd(cash.usdCents) },
              )
            : tr.t(
                dest === 'SA' && f.file.purposeCode === 'S0303'
                  ? 'forex.checklist.cash_haj'
                  : 'forex.checklist.cash_whole',
              );
        return {
          label: tr.t('forex.checklist.cash_limit'),
          detail: tr.t('forex.checklist.cash_detail', {
            notes: formatUsdCents(q?.notesUsdCents ?? 0),
            reason,
          }),
        };
      }
      case 'lrs_limit': {
        const prior = f.lrsPriorUsdCents;
        const mine = q?.usdEquivalentCents ?? 0;
        return {
          label: tr.t('forex.checklist.lrs_limit', { year: q?.financialYear ?? '' }),
          detail: tr.t('forex.checklist.lrs_detail', {
            before: formatUsdCents(prior),
            thisFile: formatUsdCents(mine),
            total: formatUsdCents(prior + mine),
            limit: formatUsdCents(LRS_LIMIT_USD_CENTS),
          }),
        };
      }
      case 'tcs': {
        const tcs = q?.tcs;
        return {
          label: tr.t('forex.checklist.tcs'),
          detail: tcs
            ? tr.t('forex.checklist.tcs_detail', {
                tcs: tr.rupees(q.tcsPaise),
                rate: String(tcs.rateBps / 100),
                category: tr.t(`forex.tcs_category.${tcs.category}`),
                above: tr.rupees(tcs.abovePaise),
                threshold: tr.rupees(tcs.thresholdPaise),
                prior: tr.rupees(tcs.priorPaise),
              })
            : i.detail,
        };
      }
      case 'declaration':
        return {
          label: tr.t(`forex.declaration_label.${f.file.kind}`),
          detail:
            i.status === 'done' && f.file.declaredAt
              ? tr.t('forex.checklist.declared', { time: tr.ist(f.file.declaredAt) })
              : tr.t('forex.checklist.declaration_pending'),
        };
      default:
        return { label: i.label, detail: i.detail };
    }
  }
}
