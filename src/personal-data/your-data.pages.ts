import { Injectable } from '@nestjs/common';

import type { Translator } from '../common/i18n/catalogue';
import { AppLayout } from '../web/app-layout.service';
import type { FormOutcome } from '../web/form-outcome';
import type { SignedInPerson } from '../web/signed-in-person';
import { LEGAL_HOLDS, LegalHoldRule } from './legal-holds';
import { CONSENT_PURPOSE, ConsentKind, KeptRecord } from './personal-data.repository';
import { ErasureOutcome, PersonalDataService } from './personal-data.service';

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * The words of one status (or kind) from the catalogue under `prefix`; a value the catalogue
 * does not know yet is said as the section's generic word rather than shown raw.
 */
function word(tr: Translator, prefix: string, value: unknown, fallback: string): string {
  const key = `${prefix}.${String(value)}`;
  const said = tr.t(key);
  return said === key ? tr.t(fallback) : said;
}

/** A legal hold in the page's language (docs/personal-data.md "What we keep after erasure, and why"). */
function holdWords(tr: Translator, kind: string, storedRule: string) {
  const known = LEGAL_HOLDS.some((h) => h.kind === kind);
  return {
    label: known ? tr.t(`data.holds.${kind}.label`) : kind,
    rule: known ? tr.t(`data.holds.${kind}.rule`) : storedRule,
  };
}

/**
 * What a refused correction says on the page, in the page's language: the service names the field
 * it refused (`$.name`, `$.email`, `$.phone`; PersonalDataService.correct).
 */
export function correctionError(tr: Translator, outcome: FormOutcome<unknown>): string | null {
  if (outcome.ok) {
    return null;
  }
  if (outcome.param === '$.name') {
    return tr.t('data.correct.errors.name');
  }
  if (outcome.param === '$.email') {
    return /already uses/.test(outcome.message)
      ? tr.t('data.correct.errors.email_taken')
      : tr.t('data.correct.errors.email');
  }
  if (outcome.param === '$.phone') {
    return tr.t('data.correct.errors.phone');
  }
  return tr.t('data.correct.errors.other');
}

/** The "Your data" pages' locals: the export in plain words (templates format, they do not decide). */
@Injectable()
export class YourDataPages {
  constructor(
    private readonly data: PersonalDataService,
    private readonly layout: AppLayout,
  ) {}

  private holds(tr: Translator) {
    const rights = this.data.rights;
    return LEGAL_HOLDS.map((h: LegalHoldRule) => ({
      ...holdWords(tr, h.kind, h.rule),
      years: tr.t('data.holds.years', { count: h.years(rights) }),
      uncertain: h.uncertain,
    }));
  }

  async page(
    person: SignedInPerson,
    tr: Translator,
    opts: {
      error?: string | null;
      values?: { name: string; email: string; phone: string };
      saved?: boolean;
    } = {},
  ) {
    const x = await this.data.export(person);
    const profile = x.profile as Json;
    const when = (v: unknown): string => (typeof v === 'string' ? tr.ist(v) : tr.t('data.none'));
    const payments = list(x.payments);
    const refunds = list(x.refunds);
    return this.layout.page(
      person,
      tr.t('data.title'),
      {
        error: opts.error ?? null,
        saved: opts.saved === true,
        values: opts.values ?? {
          name: profile.name as string,
          email: profile.email as string,
          phone: (profile.phone as string | null) ?? '',
        },
        profile: {
          name: profile.name,
          email: profile.email,
          phone: str(profile.phone),
          since: when(profile.created_at),
          workspace: (profile.workspace as Json).name,
        },
        sessions: list(x.sessions).map((s) => ({
          since: when(s.signed_in_at),
          until: when(s.expires_at),
          current: s.current === true,
        })),
        agents: list(x.agents).map((a) => ({
          name: a.name,
          role: word(tr, 'data.agents.role', a.role, 'data.agents.role.both'),
          disabled: a.disabled_at !== null,
        })),
        mandates: list(x.mandates).map((m) => ({
          description: str(m.description),
          method: word(tr, 'data.mandates.method', m.rail, 'data.mandates.method.other'),
          status: word(tr, 'data.mandates.status', m.status, 'data.mandates.status.active'),
          cap: tr.t('data.mandates.cap', { cap: tr.rupees(m.per_payment_cap_paise as number) }),
          authorised: m.authorised_at
            ? tr.t('data.mandates.authorised', { at: when(m.authorised_at) })
            : tr.t('data.mandates.not_authorised'),
        })),
        approvals: list(x.approvals).map((a) => {
          // A refund's reason is the seller's own words; a payment's description is composed
          // with its ids, so the payment is said by its amount alone (its receipt has the items).
          const about =
            a.kind === 'refund' ? str(refunds.find((r) => r.id === a.subject_id)?.reason) : null;
          const kind = ['payment', 'refund', 'recurring_charge'].includes(String(a.kind))
            ? String(a.kind)
            : 'payment';
          return {
            what: tr.t(`data.approvals.kind.${kind}`, {
              amount: tr.rupees(a.amount_paise as number),
            }),
            about,
            status: word(tr, 'data.approvals.status', a.status, 'data.approvals.status.pending'),
            when: a.decided_at
              ? tr.t('data.approvals.decided', { at: when(a.decided_at) })
              : tr.t('data.approvals.asked', { at: when(a.created_at) }),
          };
        }),
        payments: payments.map((p) => ({
          what: tr.t(
            p.role === 'paid' ? 'data.payments.role.paid' : 'data.payments.role.received',
            {
              amount: tr.rupees(p.amount_paise as number),
            },
          ),
          status: word(tr, 'data.payments.status', p.status, 'data.payments.status.processing'),
          at: when(p.settled_at ?? p.created_at),
          receiptId: (p.receipt as Json | null)?.id ?? null,
        })),
        refunds: refunds.map((r) => ({
          what: tr.t('data.refunds.line', { amount: tr.rupees(r.amount_paise as number) }),
          status: word(tr, 'data.refunds.status', r.status, 'data.refunds.status.processing'),
          reason: str(r.reason),
          at: when(r.succeeded_at ?? r.created_at),
        })),
        forexFiles: list(x.forex_files).map((f) => ({
          traveller: f.traveller_name,
          pan: tr.t('data.forex.pan', { pan: String(f.pan_masked) }),
          status: word(tr, 'data.forex.status', f.status, 'data.forex.status.draft'),
          documents: tr.t('data.forex.documents', { count: list(f.documents).length }),
        })),
        consents: list(x.consents).map((c) => {
          const kind = c.kind as ConsentKind;
          // The purpose was stored in the words the person saw (English); when it is still the
          // current wording, the page says it in the page's language.
          const purpose =
            c.purpose === CONSENT_PURPOSE[kind]
              ? tr.t(`data.consents.purpose.${kind}`)
              : String(c.purpose);
          return {
            label: word(tr, 'data.consents.kind', kind, 'data.consents.heading'),
            subjectId: c.subject_id,
            purpose,
            givenAt: when(c.given_at),
            withdrawnAt: c.withdrawn_at ? when(c.withdrawn_at) : null,
          };
        }),
        holds: this.holds(tr),
      },
      'your-data',
    );
  }

  confirmPage(person: SignedInPerson, tr: Translator, error: string | null) {
    return this.layout.page(
      person,
      tr.t('data.confirm.title'),
      { error, holds: this.holds(tr) },
      'your-data',
    );
  }

  erasedPage(tr: Translator, outcome: ErasureOutcome) {
    return {
      title: tr.t('data.erased.title'),
      modeBanner: this.layout.modeBanner(),
      erasedAt: tr.ist(outcome.erasedAt),
      workspaceClosed: outcome.workspaceClosed,
      kept: outcome.kept.map((k: KeptRecord) => ({
        kind: k.kind,
        ...holdWords(tr, k.kind, k.rule),
        count: k.count,
        until: tr.t(k.uncertain ? 'data.erased.kept_until_uncertain' : 'data.erased.kept_until', {
          until: tr.istDate(k.holdUntil),
          years: k.periodYears,
        }),
      })),
    };
  }
}
