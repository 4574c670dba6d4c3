import { Inject, Injectable } from '@nestjs/common';

import { canBuy } from '../accounts/entities/agent.entity';
import { ChainService } from '../chains/chain.service';
import { AuditLog } from '../common/audit';
import type { AgentPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { newDigestSalt, personalDigest } from '../personal-data/personal-digest';
import { findAadhaar } from './aadhaar';
import type {
  ForexDocumentResponse,
  ForexFileResponse,
  ForexFileSummary,
  ForexPartnerResponse,
  ForexQuoteResponse,
  ForexRatesResponse,
  ForexReceiptResponse,
} from './dto/forex-responses';
import { ForexFile } from './entities/forex-file.entity';
import { ForexQuote } from './entities/forex-quote.entity';
import { daysBetween, financialYearOf, isCalendarDate, istDate } from './financial-year';
import { forexErrors } from './forex.errors';
import { toFileSummary, toQuoteResponse } from './forex.mapper';
import { ForexDocumentsService } from './forex-documents.service';
import { ForexFileRepository } from './forex-file.repository';
import {
  canMove,
  DECLARATION_WINDOW_MS,
  effectiveFileStatus,
  FileStatus,
  RATE_LOCK_MS,
} from './forex-file.state';
import { ForexPartnersService } from './forex-partners.service';
import { LineRequest, priceLines } from './forex-pricing';
import {
  computeTcs,
  FILE_KINDS,
  FileKind,
  KIND_RULES,
  MAX_DAYS_BEFORE_DEPARTURE,
  NO_FOREX_DESTINATIONS,
  PURPOSE_CODES,
  tcsCategoryOf,
} from './forex-rules';
import { ForexViews } from './forex-views';
import type { PanDigest } from './pan';
import { PanVault } from './pan-vault';

export interface CreateFileInput {
  partnerId: string;
  kind: string;
  purposeCode: string;
  personEmail: string;
  travellerName: string;
  beneficiaryName?: string;
  companyName?: string;
  destinationCountry: string;
  departureDate?: string;
  returnDate?: string;
  /** The raw PAN, or a digest PanVault made of it (the REST guard digests before hashing the body). */
  pan: string | PanDigest;
  educationLoanFunded?: boolean;
  notes?: string;
}

export interface QuoteInput {
  fileId: string;
  lines: LineRequest[];
}

/**
 * Forex files for agents (spec §1, §4 "Forex"; docs/forex.md "Forex files"). Every public method takes
 * the authenticated agent and plain inputs, so REST (ForexController) and MCP tools are thin
 * wrappers over the same rules. A file of another agent is 404. Lock order: file row → the PAN's
 * LRS advisory lock (submit) → chain head (receipt append, last).
 */
@Injectable()
export class ForexService {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly files: ForexFileRepository,
    private readonly partners: ForexPartnersService,
    private readonly views: ForexViews,
    private readonly chains: ChainService,
    private readonly pans: PanVault,
    private readonly documents: ForexDocumentsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  listPartners(
    _agent: AgentPrincipal,
    page: { limit?: number; startingAfter?: string } = {},
  ): Promise<Page<ForexPartnerResponse>> {
    return this.partners.list(page.limit ?? 20, page.startingAfter);
  }

  rates(_agent: AgentPrincipal, partnerId: string): Promise<ForexRatesResponse> {
    return this.partners.rates(partnerId);
  }

  async createFile(agent: AgentPrincipal, input: CreateFileInput): Promise<ForexFileResponse> {
    assertBuyer(agent);
    refuseAadhaar({ ...input, pan: typeof input.pan === 'string' ? input.pan : '' });
    const kind = input.kind as FileKind;
    if (!FILE_KINDS.includes(kind)) {
      throw forexErrors.invalid(
        '$.kind',
        'invalid_kind',
        `kind must be one of ${FILE_KINDS.join(', ')}`,
      );
    }
    const rule = KIND_RULES[kind];
    const pan = this.pans.digest(input.pan, rule.panHolderTypes);
    if (!(input.purposeCode in PURPOSE_CODES)) {
      throw forexErrors.invalid(
        '$.purpose_code',
        'unknown_purpose_code',
        `purpose_code must be one of ${Object.keys(PURPOSE_CODES).join(', ')}`,
      );
    }
    if (!rule.purposes.includes(input.purposeCode)) {
      throw forexErrors.invalid(
        '$.purpose_code',
        'purpose_not_allowed',
        `A ${kind} file takes purpose ${rule.purposes.join(', ')}; ${input.purposeCode} is not one of them`,
      );
    }
    const destination = input.destinationCountry.trim().toUpperCase();
    if (!/^[A-Z]{2}$/.test(destination) || destination === 'IN') {
      throw forexErrors.invalid(
        '$.destination_country',
        'invalid_destination',
        'destination_country must be a country outside India, ISO 3166-1 alpha-2 (e.g. AE)',
      );
    }
    if (rule.travel && NO_FOREX_DESTINATIONS.includes(destination)) {
      throw forexErrors.invalid(
        '$.destination_country',
        'destination_not_allowed',
        'Foreign currency is not released for travel to Nepal or Bhutan',
      );
    }
    const now = this.clock.now();
    const dates = checkDates(input, rule.travel, istDate(now));
    if (input.educationLoanFunded && input.purposeCode !== 'S0305') {
      throw forexErrors.invalid(
        '$.education_loan_funded',
        'invalid',
        'education_loan_funded applies to education (S0305) only',
      );
    }
    const travellerName = required(input.travellerName, '$.traveller_name');
    const companyName = optional(input.companyName);
    if (kind === 'corporate_travel' && !companyName) {
      throw forexErrors.invalid(
        '$.company_name',
        'missing',
        'company_name is required for corporate_travel',
      );
    }
    return this.tx.run(async () => {
      const partner = await this.partners.get(input.partnerId, '$.partner_id');
      const person = await this.files.findPersonInWorkspace(input.personEmail, agent.workspaceId);
      if (!person) {
        throw forexErrors.personNotFound();
      }
      const file = Object.assign(new ForexFile(), {
        id: newId('fxo'),
        workspaceId: agent.workspaceId,
        agentId: agent.id,
        personId: person.id,
        partnerId: partner.id,
        kind,
        purposeCode: input.purposeCode,
        travellerName,
        beneficiaryName: optional(input.beneficiaryName),
        companyName,
        destinationCountry: destination,
        departureDate: dates.departure,
        returnDate: dates.return,
        educationLoanFunded: input.educationLoanFunded ?? false,
        notes: optional(input.notes),
        panHash: pan.hash,
        panKeyVersion: pan.keyVersion,
        panMasked: pan.masked,
        panHolderType: pan.holderType,
        status: 'draft' as const,
        currentQuoteId: null,
        lrsFinancialYear: null,
        lrsUsdCents: 0,
        lrsInrPaise: 0,
        submissions: 0,
        returns: 0,
        submittedAt: null,
        declarationDueAt: null,
        declaredAt: null,
        declaredBy: null,
        decidedAt: null,
        decidedBy: null,
        dealReference: null,
        dealerNotes: [],
        receiptId: newId('rcp'),
        createdAt: now,
        updatedAt: now,
        travellerNameSalt: newDigestSalt(),
        erasedAt: null,
      });
      await this.files.insert(file);
      await this.audit.record(agent.workspaceId, actorOf(agent), 'forex.file_created', file.id, {
        partner_id: partner.id,
        kind,
        purpose_code: file.purposeCode,
      });
      await this.chains.append(file.receiptId, {
        type: 'forex.file_created',
        file_id: file.id,
        kind,
        purpose_code: file.purposeCode,
        partner: { id: partner.id, name: partner.name, licence_number: partner.licenceNumber },
        agent_id: agent.id,
        workspace_id: agent.workspaceId,
        person_id: person.id,
        // The name stays out of the signed bytes, so erasing it never breaks the chain.
        traveller_name_digest: personalDigest(file.travellerNameSalt, travellerName),
        destination_country: destination,
        departure_date: dates.departure,
        return_date: dates.return,
        pan_masked: pan.masked,
      });
      return this.views.fileResponse(file);
    });
  }

  async listFiles(
    agent: AgentPrincipal,
    q: { status?: FileStatus; limit?: number; startingAfter?: string } = {},
  ): Promise<Page<ForexFileSummary>> {
    const limit = q.limit ?? 20;
    const rows = await this.files.listForAgent(
      agent.id,
      q.status,
      limit,
      decodeCursor(q.startingAfter),
    );
    const now = this.clock.now();
    return toPage(rows, limit, (f) => toFileSummary(f, effectiveFileStatus(f, now)));
  }

  /** The file with its state, checklist, documents (metadata), quote and dealer notes. */
  async status(agent: AgentPrincipal, fileId: string): Promise<ForexFileResponse> {
    return this.views.fileResponse(await this.own(agent, fileId));
  }

  async receipt(agent: AgentPrincipal, fileId: string): Promise<ForexReceiptResponse> {
    return this.views.receipt(await this.own(agent, fileId));
  }

  /**
   * Adds a document (PDF, JPEG or PNG by its magic bytes, matching content_type; at most
   * 5,000,000 bytes) to a draft, quoted or returned file. Aadhaar is refused.
   */
  uploadDocument(
    agent: AgentPrincipal,
    fileId: string,
    input: { kind: string; content_type: string; bytes: Buffer; filename?: string },
  ): Promise<ForexDocumentResponse> {
    return this.documents.upload(agent, fileId, {
      kind: input.kind,
      contentType: input.content_type,
      bytes: input.bytes,
      filename: input.filename,
    });
  }

  /**
   * Prices the lines at the partner's current rates and locks them for 15 minutes. A new quote
   * replaces the file's current one (draft, quoted, or returned by the dealer).
   */
  async quote(agent: AgentPrincipal, input: QuoteInput): Promise<ForexQuoteResponse> {
    refuseAadhaar(input);
    return this.tx.run(async () => {
      const file = await this.lockOwn(agent, input.fileId);
      const now = this.clock.now();
      const status = effectiveFileStatus(file, now);
      if (!canMove(status, 'quote')) {
        throw forexErrors.notInState(file.id, status, 'be quoted');
      }
      const rule = KIND_RULES[file.kind];
      const partner = await this.partners.get(file.partnerId);
      const priced = priceLines(rule, input.lines, await this.partners.rateMap(partner.id));
      const financialYear = financialYearOf(now);
      const prior = rule.lrs
        ? await this.files.lrsTotals(file.panHash, financialYear, file.id, now)
        : { usdCents: 0, inrPaise: 0 };
      const tcs = rule.tcs
        ? this.tcs(file, financialYear, prior.inrPaise, priced.rupeesPaise)
        : null;
      const tcsPaise = tcs?.tcsPaise ?? 0;
      const fee = partner.serviceFeePaise;
      const direction = rule.rateSide === 'sell' ? 'person_pays' : 'person_receives';
      const total =
        direction === 'person_pays'
          ? priced.rupeesPaise + fee + tcsPaise
          : priced.rupeesPaise - fee;
      if (total <= 0) {
        throw forexErrors.invalid(
          '$.lines',
          'amount_below_fee',
          "The amount does not cover the partner's fee",
        );
      }
      const quote = Object.assign(new ForexQuote(), {
        id: newId('fxq'),
        fileId: file.id,
        partnerId: partner.id,
        lines: priced.lines,
        rupeesPaise: priced.rupeesPaise,
        feePaise: fee,
        tcsPaise,
        totalPaise: total,
        direction,
        usdReferenceRate: priced.usdReferenceRate,
        usdEquivalentCents: priced.usdEquivalentCents,
        notesUsdCents: priced.notesUsdCents,
        financialYear,
        lrsPriorUsdCents: prior.usdCents,
        tcs,
        rateLockedUntil: new Date(now.getTime() + RATE_LOCK_MS),
        createdAt: now,
      });
      await this.files.insertQuote(quote);
      await this.files.update(file.id, {
        status: 'quoted',
        currentQuoteId: quote.id,
        updatedAt: now,
      });
      await this.audit.record(agent.workspaceId, actorOf(agent), 'forex.quoted', file.id, {
        quote_id: quote.id,
        total_paise: total,
      });
      await this.chains.append(file.receiptId, {
        type: 'forex.quoted',
        file_id: file.id,
        ...quoteFacts(quote),
      });
      return toQuoteResponse(quote, now);
    });
  }

  /**
   * Sends the file towards the dealer: the rate lock must be live and the checklist complete
   * (LRS and TCS re-checked under the PAN's lock); the file then waits for its person's
   * declaration in the app (declaration.url). Concurrent submits: one wins, the rest see the new
   * state (409).
   */
  async submit(agent: AgentPrincipal, fileId: string): Promise<ForexFileResponse> {
    return this.tx.run(async () => {
      const file = await this.lockOwn(agent, fileId);
      const now = this.clock.now();
      const status = effectiveFileStatus(file, now);
      if (!canMove(status, 'submit')) {
        throw forexErrors.notInState(file.id, status, 'be submitted');
      }
      const quote = file.currentQuoteId ? await this.files.findQuote(file.currentQuoteId) : null;
      if (quote && now.getTime() >= quote.rateLockedUntil.getTime()) {
        throw forexErrors.rateLockLapsed(quote.rateLockedUntil);
      }
      const rule = KIND_RULES[file.kind];
      let prior = { usdCents: 0, inrPaise: 0 };
      if (quote && rule.lrs) {
        await this.files.lockPanYear(file.panHash, quote.financialYear);
        prior = await this.files.lrsTotals(file.panHash, quote.financialYear, file.id, now);
        if (rule.tcs) {
          const tcs = this.tcs(file, quote.financialYear, prior.inrPaise, quote.rupeesPaise);
          if (tcs.tcsPaise !== quote.tcsPaise) {
            throw forexErrors.quoteStale();
          }
        }
      }
      const documents = await this.files.documents(file.id);
      const checklist = this.views.checklist(file, status, documents, quote, prior.usdCents, now);
      if (!checklist.complete || !quote) {
        throw forexErrors.checklistIncomplete(
          checklist.items.filter((i) => checklist.missing.includes(i.key)),
        );
      }
      const changes: Partial<ForexFile> = {
        status: 'awaiting_declaration',
        submittedAt: now,
        declarationDueAt: new Date(now.getTime() + DECLARATION_WINDOW_MS),
        declaredAt: null,
        declaredBy: null,
        submissions: file.submissions + 1,
        lrsFinancialYear: rule.lrs ? quote.financialYear : null,
        lrsUsdCents: rule.lrs ? quote.usdEquivalentCents : 0,
        lrsInrPaise: rule.lrs ? quote.rupeesPaise : 0,
        updatedAt: now,
      };
      Object.assign(file, changes);
      await this.files.update(file.id, changes);
      await this.audit.record(agent.workspaceId, actorOf(agent), 'forex.submitted', file.id, {
        quote_id: quote.id,
      });
      await this.chains.append(file.receiptId, {
        type: 'forex.submitted',
        file_id: file.id,
        quote_id: quote.id,
        submission: file.submissions,
        checklist: checklist.items.map((i) => ({ key: i.key, status: i.status })),
        lrs: rule.lrs
          ? {
              financial_year: quote.financialYear,
              used_before_usd_cents: prior.usdCents,
              this_file_usd_cents: quote.usdEquivalentCents,
            }
          : null,
        declaration_due_at: file.declarationDueAt!.toISOString(),
      });
      return this.views.fileResponse(file);
    });
  }

  /** TCS for this file's rupees in `financialYear`, from the configured table. */
  tcs(file: ForexFile, financialYear: string, priorPaise: number, basePaise: number) {
    const year = this.config.forexTcsTable[financialYear];
    if (!year) {
      throw forexErrors.tcsYearMissing(financialYear);
    }
    return computeTcs(
      year,
      tcsCategoryOf(file.purposeCode, file.educationLoanFunded),
      priorPaise,
      basePaise,
    );
  }

  /** The agent's file, locked; anyone else's is 404. */
  async lockOwn(agent: AgentPrincipal, fileId: string): Promise<ForexFile> {
    const file = await this.files.lock(fileId);
    if (!file || file.agentId !== agent.id) {
      throw forexErrors.fileNotFound(fileId);
    }
    return file;
  }

  private async own(agent: AgentPrincipal, fileId: string): Promise<ForexFile> {
    const file = await this.files.find(fileId);
    if (!file || file.agentId !== agent.id) {
      throw forexErrors.fileNotFound(fileId);
    }
    return file;
  }
}

/** The quote as receipts and events record it. */
export function quoteFacts(q: ForexQuote): Record<string, unknown> {
  return {
    quote_id: q.id,
    lines: q.lines,
    rupees_paise: q.rupeesPaise,
    fee_paise: q.feePaise,
    tcs_paise: q.tcsPaise,
    total_paise: q.totalPaise,
    direction: q.direction,
    financial_year: q.financialYear,
    rate_locked_until: q.rateLockedUntil.toISOString(),
  };
}

function assertBuyer(agent: AgentPrincipal): void {
  if (!canBuy(agent.role)) {
    throw forexErrors.wrongRole();
  }
}

function actorOf(agent: AgentPrincipal) {
  return { type: 'agent' as const, id: agent.id };
}

/** Refuses any input holding an Aadhaar number, naming the field (never the number). */
export function refuseAadhaar(input: object): void {
  const hit = findAadhaar(snakeKeys(input));
  if (hit) {
    throw forexErrors.aadhaarRefused(hit);
  }
}

/** camelCase keys → the wire's snake_case, so a refusal names the field as the client sent it. */
function snakeKeys(v: unknown): unknown {
  if (Array.isArray(v)) {
    return v.map(snakeKeys);
  }
  if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v)) {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [
        k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
        snakeKeys(x),
      ]),
    );
  }
  return v;
}

function required(v: string, param: string): string {
  const t = v.trim();
  if (!t) {
    throw forexErrors.invalid(param, 'missing', `${param.slice(2)} must not be empty`);
  }
  return t;
}

function optional(v: string | undefined): string | null {
  const t = v?.trim();
  return t ? t : null;
}

function checkDates(
  input: Pick<CreateFileInput, 'departureDate' | 'returnDate'>,
  travel: boolean,
  today: string,
): { departure: string | null; return: string | null } {
  for (const [param, v] of [
    ['$.departure_date', input.departureDate],
    ['$.return_date', input.returnDate],
  ] as const) {
    if (v !== undefined && !isCalendarDate(v)) {
      throw forexErrors.invalid(
        param,
        'invalid_date',
        `${param.slice(2)} must be a date, YYYY-MM-DD`,
      );
    }
  }
  const departure = input.departureDate ?? null;
  const ret = input.returnDate ?? null;
  if (travel) {
    if (!departure) {
      throw forexErrors.invalid(
        '$.departure_date',
        'missing',
        'departure_date is required for a trip',
      );
    }
    const days = daysBetween(today, departure);
    if (days < 0) {
      throw forexErrors.invalid(
        '$.departure_date',
        'departure_in_past',
        'The departure date has passed',
      );
    }
    if (days > MAX_DAYS_BEFORE_DEPARTURE) {
      throw forexErrors.invalid(
        '$.departure_date',
        'departure_too_far',
        `Forex can be drawn at most ${MAX_DAYS_BEFORE_DEPARTURE} days before departure (this one is ${days} days away, IST)`,
      );
    }
  }
  if (departure && ret && ret < departure) {
    throw forexErrors.invalid(
      '$.return_date',
      'invalid_date',
      'return_date is before departure_date',
    );
  }
  return { departure, return: ret };
}
