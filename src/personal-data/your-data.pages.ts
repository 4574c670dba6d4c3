import { Injectable } from '@nestjs/common';

import { formatRupees } from '../common/money';
import { AppLayout } from '../web/app-layout.service';
import { formatIst } from '../web/local-time';
import type { SignedInPerson } from '../web/signed-in-person';
import { LEGAL_HOLDS } from './legal-holds';
import type { ConsentKind, KeptRecord } from './personal-data.repository';
import { ErasureOutcome, PersonalDataService } from './personal-data.service';

const CONSENT_LABEL: Record<ConsentKind, string> = {
  mandate: 'UPI mandate',
  protocol_key: 'Protocol key for an agent',
  forex_declaration: 'Forex declaration (Form A2 / LRS)',
};

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const when = (v: unknown): string => (typeof v === 'string' ? formatIst(v) : '—');

function keptView(k: KeptRecord) {
  const hold = LEGAL_HOLDS.find((h) => h.kind === k.kind);
  return {
    label: hold?.label ?? k.kind,
    count: k.count,
    rule: k.rule,
    years: k.periodYears,
    uncertain: k.uncertain,
    holdUntil: formatIst(k.holdUntil),
  };
}

/** The "Your data" pages' locals: the export in plain words (templates format, they do not decide). */
@Injectable()
export class YourDataPages {
  constructor(
    private readonly data: PersonalDataService,
    private readonly layout: AppLayout,
  ) {}

  async page(
    person: SignedInPerson,
    error: string | null,
    values?: { name: string; email: string; phone: string },
  ) {
    const x = await this.data.export(person);
    const profile = x.profile as Json;
    const rights = this.data.rights;
    return this.layout.page(
      person,
      'Your data',
      {
        error,
        values: values ?? {
          name: profile.name as string,
          email: profile.email as string,
          phone: (profile.phone as string | null) ?? '',
        },
        profile: {
          name: profile.name,
          email: profile.email,
          phone: profile.phone ?? 'not given',
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
          role: a.role,
          disabled: a.disabled_at !== null,
        })),
        mandates: list(x.mandates).map((m) => ({
          id: m.id,
          description: m.description ?? 'Mandate',
          status: m.status,
          cap: formatRupees(m.per_payment_cap_paise as number),
          authorisedAt: when(m.authorised_at),
        })),
        approvals: list(x.approvals).map((a) => ({
          summary: a.summary,
          status: a.status,
          decidedAt: when(a.decided_at),
        })),
        payments: list(x.payments).map((p) => ({
          id: p.id,
          role: p.role === 'paid' ? 'You paid' : 'You received',
          amount: formatRupees(p.amount_paise as number),
          status: p.status,
          at: when(p.created_at),
          receiptId: (p.receipt as Json | null)?.id ?? null,
        })),
        refunds: list(x.refunds).map((r) => ({
          amount: formatRupees(r.amount_paise as number),
          status: r.status,
          reason: r.reason ?? '',
          at: when(r.created_at),
        })),
        forexFiles: list(x.forex_files).map((f) => ({
          id: f.id,
          traveller: f.traveller_name,
          pan: f.pan_masked,
          status: f.status,
          documents: list(f.documents).length,
        })),
        consents: list(x.consents).map((c) => ({
          label: CONSENT_LABEL[c.kind as ConsentKind] ?? c.kind,
          subjectId: c.subject_id,
          purpose: c.purpose,
          givenAt: when(c.given_at),
          withdrawnAt: c.withdrawn_at ? when(c.withdrawn_at) : null,
        })),
        holds: LEGAL_HOLDS.map((h) => ({
          label: h.label,
          rule: h.rule,
          years: h.years(rights),
          uncertain: h.uncertain,
        })),
      },
      'your-data',
    );
  }

  confirmPage(person: SignedInPerson, error: string | null) {
    const rights = this.data.rights;
    return this.layout.page(
      person,
      'Erase your data',
      {
        error,
        holds: LEGAL_HOLDS.map((h) => ({
          label: h.label,
          rule: h.rule,
          years: h.years(rights),
          uncertain: h.uncertain,
        })),
      },
      'your-data',
    );
  }

  erasedPage(outcome: ErasureOutcome) {
    return {
      title: 'Your data was erased',
      modeBanner: this.layout.modeBanner(),
      erasedAt: formatIst(outcome.erasedAt),
      workspaceClosed: outcome.workspaceClosed,
      kept: outcome.kept.map(keptView),
    };
  }
}
