import { Injectable } from '@nestjs/common';

import { formatRupees } from '../common/money';
import { AppLayout } from '../web/app-layout.service';
import { formatIst } from '../web/local-time';
import type { SignedInPerson } from '../web/signed-in-person';
import { currencyInfo } from './currencies';
import type { ForexRate } from './entities/forex-rate.entity';
import { formatRate, rateToFeedText } from './forex-amounts';
import { ForexDeskService, PersonActor } from './forex-desk.service';
import { STATUS_LABELS } from './forex-file.state';
import { formatUsdCents } from './forex-format';
import { ForexPartnerRepository } from './forex-partner.repository';
import { KIND_RULES, LRS_LIMIT_USD_CENTS, PURPOSE_CODES } from './forex-rules';
import type { FileFacts } from './forex-views';

/** Page models of the declaration pages and the dealer desk: formatting only, no decisions. */
@Injectable()
export class ForexPagesService {
  constructor(
    private readonly desk: ForexDeskService,
    private readonly partners: ForexPartnerRepository,
    private readonly layout: AppLayout,
  ) {}

  actor(person: SignedInPerson): PersonActor {
    return { personId: person.personId, workspaceId: person.workspaceId, name: person.name };
  }

  async declarations(person: SignedInPerson) {
    const files = await this.desk.filesOfPerson(this.actor(person));
    return this.layout.page(
      person,
      'Forex declarations',
      {
        waiting: files.filter((f) => f.status === 'awaiting_declaration').map((f) => this.card(f)),
        others: files.filter((f) => f.status !== 'awaiting_declaration').map((f) => this.card(f)),
      },
      'forex-declarations',
    );
  }

  async declaration(person: SignedInPerson, fileId: string, error?: string) {
    const f = await this.desk.fileOfPerson(this.actor(person), fileId);
    return this.layout.page(
      person,
      'Forex declaration',
      { file: this.card(f), error: error ?? null },
      'forex-declarations',
    );
  }

  async queue(person: SignedInPerson) {
    const q = await this.desk.queue(this.actor(person));
    return this.layout.page(
      person,
      'Dealer desk',
      {
        partner: { name: q.partner.name, licence: q.partner.licenceNumber },
        waiting: q.waiting.map((f) => this.card(f)),
        decided: q.decided.map((f) => this.card(f)),
      },
      'forex-desk',
    );
  }

  async deskFile(person: SignedInPerson, fileId: string, error?: string) {
    const f = await this.desk.deskFile(this.actor(person), fileId);
    return this.layout.page(
      person,
      `File ${f.file.id}`,
      { file: this.card(f), error: error ?? null },
      'forex-desk',
    );
  }

  async rates(person: SignedInPerson, error?: { currency: string; message: string }) {
    const partner = await this.desk.partnerOfDealer(this.actor(person));
    const rows = await this.partners.rates(partner.id);
    return this.layout.page(
      person,
      'Rates',
      {
        partner: { name: partner.name, licence: partner.licenceNumber },
        rates: rows.map((r) => this.rateRow(r, error)),
      },
      'forex-desk',
    );
  }

  private rateRow(r: ForexRate, error?: { currency: string; message: string }) {
    const per = currencyInfo(r.currency)?.feedQuotedPer ?? 1;
    return {
      currency: r.currency,
      per,
      perLabel: per === 100 ? 'per 100 units' : 'per unit',
      notesBuy: rateToFeedText(r.notesBuy, per),
      notesSell: rateToFeedText(r.notesSell, per),
      cardBuy: rateToFeedText(r.cardBuy, per),
      cardSell: rateToFeedText(r.cardSell, per),
      setAt: formatIst(r.setAt),
      setBy: r.setBy === 'seed' ? 'sandbox table' : 'a dealer',
      error: error && error.currency === r.currency ? error.message : null,
    };
  }

  /** One file as the person and the dealer read it. */
  card(f: FileFacts) {
    const rule = KIND_RULES[f.file.kind];
    const q = f.quote;
    return {
      id: f.file.id,
      status: f.status,
      statusLabel: STATUS_LABELS[f.status],
      awaiting: f.status === 'awaiting_declaration',
      onDeskOpen: f.status === 'submitted',
      kindLabel: rule.label,
      purpose: `${f.file.purposeCode} · ${PURPOSE_CODES[f.file.purposeCode] ?? ''}`,
      traveller: f.file.travellerName,
      beneficiary: f.file.beneficiaryName,
      company: f.file.companyName,
      destination: f.file.destinationCountry,
      departure: f.file.departureDate,
      returnDate: f.file.returnDate,
      panMasked: f.file.panMasked,
      notes: f.file.notes,
      partner: f.partner.name,
      declarationLabel: rule.declarationLabel,
      dueAt: f.file.declarationDueAt ? formatIst(f.file.declarationDueAt) : null,
      declaredAt: f.file.declaredAt ? formatIst(f.file.declaredAt) : null,
      quote: q
        ? {
            id: q.id,
            lines: q.lines.map((l) => ({
              currency: l.currency,
              product: l.product,
              amount: l.foreign_amount,
              rate: formatRate(l.rate),
              rupeeAmount: formatRupees(l.rupees_paise),
            })),
            rupeeAmount: formatRupees(q.rupeesPaise),
            fee: formatRupees(q.feePaise),
            tcs: formatRupees(q.tcsPaise),
            total: formatRupees(q.totalPaise),
            pays: q.direction === 'person_pays',
            lockedUntil: formatIst(q.rateLockedUntil),
            financialYear: q.financialYear,
          }
        : null,
      lrs:
        rule.lrs && q
          ? {
              year: q.financialYear,
              before: formatUsdCents(f.lrsPriorUsdCents),
              thisFile: formatUsdCents(q.usdEquivalentCents),
              after: formatUsdCents(f.lrsPriorUsdCents + q.usdEquivalentCents),
              limit: formatUsdCents(LRS_LIMIT_USD_CENTS),
            }
          : null,
      checklist: f.checklist.items.map((i) => ({
        ...i,
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
        kind: d.kind,
        contentType: d.contentType,
        size: d.sizeBytes.toLocaleString('en-IN'),
        sha256: d.sha256,
        filename: d.filename,
      })),
      dealerNotes: f.file.dealerNotes.map((n) => ({ ...n, at: formatIst(n.at) })),
      dealReference: f.file.dealReference,
      receiptId: f.file.receiptId,
    };
  }
}
