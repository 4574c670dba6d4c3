import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { personalDataAccounts } from '../accounts/accounts.repository';
import { personalDataAgents } from '../accounts/agent.repository';
import { PartyClosure } from '../accounts/party-closure.service';
import { approvalsOfWorkspace } from '../approvals/approval.repository';
import { ChainService } from '../chains/chain.service';
import { AuditActor, AuditLog } from '../common/audit';
import { auditEventsOf } from '../common/audit.repository';
import { Clock } from '../common/clock';
import { CredentialRevocations } from '../common/credentials/credential-revocations';
import { commonErrors } from '../common/errors/app-error';
import { deleteRecordsOfOwners } from '../common/idempotency/idempotency-record.repository';
import { newId } from '../common/ids';
import { APP_CONFIG, AppConfig, DataRightsConfig, DEFAULT_DATA_RIGHTS } from '../config/app.config';
import type { PersonScope } from '../database/personal-rows';
import { Tx } from '../database/tx';
import { personalDataForex } from '../forex/forex-file.repository';
import { mandatesOfWorkspace } from '../mandates/mandate.repository';
import { isRevocable } from '../mandates/mandate.state';
import { MandatesService } from '../mandates/mandates.service';
import { intentsOfWorkspace } from '../payments/payment-intent.repository';
import { personalDataProtocolKeys } from '../protocol-keys/protocol-key.repository';
import { refundsOfIntents } from '../refunds/refund.repository';
import { deleteSessionsOf, sessionsOf } from '../web/person-session.repository';
import type { SignedInPerson } from '../web/signed-in-person';
import {
  CATEGORY_LABEL,
  erasureText,
  personalColumns,
  personalTables,
  retentionText,
} from './data-map';
import {
  identifierDigest,
  identifierKey,
  IdentifierMatcher,
  nameWords,
  normaliseEmail,
  normaliseName,
  normalisePhone,
  OldIdentifier,
} from './identifiers';
import { holdUntil, LEGAL_HOLDS } from './legal-holds';
import { eraseByMap, storeOf } from './map-erasure';
import {
  ConsentRecord,
  deleteOldIdentifiers,
  KeptRecord,
  oldIdentifierCounts,
  oldIdentifiersOf,
  PersonalDataRepository,
  recordConsentWithdrawn,
  recordOldIdentifiers,
} from './personal-data.repository';
import { ROW_STORES } from './row-stores';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** An Indian mobile number: optional +91, then 10 digits starting 6-9 (spaces and hyphens allowed). */
const PHONE = /^(?:\+?91)?[6-9][0-9]{9}$/;
const AUDIT_LIMIT = 1000;

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
const actorOf = (p: SignedInPerson): AuditActor => ({ type: 'person', id: p.personId });

export interface CorrectionInput {
  name: string;
  email: string;
  phone: string;
}

export interface ErasureOutcome {
  erasedAt: string;
  workspaceClosed: boolean;
  kept: KeptRecord[];
}

/**
 * A person's data rights (DPDP Act 2023 ss. 11-13; docs/personal-data.md): everything we hold about
 * them and their workspace's agents, correction of their name and contact details, and erasure that
 * keeps only what a law requires. Reads go through each table's owner (docs/architecture.md
 * "Table owners").
 */
@Injectable()
export class PersonalDataService {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly chains: ChainService,
    private readonly mandates: MandatesService,
    private readonly revocations: CredentialRevocations,
    private readonly repo: PersonalDataRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly closure: PartyClosure,
  ) {}

  get rights(): DataRightsConfig {
    return this.config.dataRights ?? DEFAULT_DATA_RIGHTS;
  }

  /** Everything we hold about the person and their workspace, as the download carries it. */
  async export(person: SignedInPerson): Promise<Record<string, unknown>> {
    const m = this.tx.manager;
    const ws = person.workspaceId;
    const profile = await personalDataAccounts.profile(m, person.personId);
    if (!profile) {
      throw commonErrors.notFound('person', person.personId);
    }
    const [sessions, apiKeys, agents, protocolKeys, mandates, approvals, intents, files, consents] =
      await Promise.all([
        sessionsOf(m, person.personId),
        personalDataAccounts.apiKeys(m, ws),
        personalDataAgents.all(m, ws),
        personalDataProtocolKeys.all(m, ws),
        mandatesOfWorkspace(m, ws),
        approvalsOfWorkspace(m, ws),
        intentsOfWorkspace(m, ws),
        personalDataForex.filesOfPerson(m, person.personId),
        this.repo.consentsOf(ws),
      ]);
    const [refunds, documents, audit] = await Promise.all([
      refundsOfIntents(
        m,
        intents.map((i) => i.id),
      ),
      personalDataForex.documentsOf(
        m,
        files.map((f) => f.id),
      ),
      auditEventsOf(m, ws, AUDIT_LIMIT),
    ]);
    const payments = [];
    for (const i of intents) {
      payments.push({
        id: i.id,
        role: i.buyerWorkspaceId === ws ? 'paid' : 'received',
        status: i.status,
        amount_paise: i.amountPaise,
        amount_refunded_paise: i.amountRefundedPaise,
        currency: i.currency,
        description: i.description,
        buyer_agent_id: i.buyerAgentId,
        seller_agent_id: i.sellerAgentId,
        mandate_id: i.mandateId,
        rail: i.rail,
        rail_reference: i.railReference,
        decline_code: i.declineCode,
        created_at: iso(i.createdAt),
        settled_at: iso(i.settledAt),
        receipt: i.receiptId
          ? { id: i.receiptId, entries: await this.chains.entries(i.receiptId) }
          : null,
      });
    }
    const held = await this.heldByMap(
      m,
      await this.scopeOf(
        m,
        person,
        intents.map((i) => i.id),
      ),
      person.personId,
    );
    const forex = [];
    for (const f of files) {
      forex.push({
        id: f.id,
        kind: f.kind,
        purpose_code: f.purposeCode,
        status: f.status,
        traveller_name: f.travellerName,
        beneficiary_name: f.beneficiaryName,
        company_name: f.companyName,
        destination_country: f.destinationCountry,
        departure_date: f.departureDate,
        return_date: f.returnDate,
        notes: f.notes,
        // Only the masked form: the raw PAN is never stored, its keyed hash is not yours to read.
        pan_masked: f.panMasked,
        lrs_financial_year: f.lrsFinancialYear,
        lrs_usd_cents: f.lrsUsdCents,
        declared_at: iso(f.declaredAt),
        created_at: iso(f.createdAt),
        documents: documents
          .filter((d) => d.fileId === f.id)
          .map((d) => ({
            id: d.id,
            kind: d.kind,
            content_type: d.contentType,
            size_bytes: d.sizeBytes,
            sha256: d.sha256,
            created_at: iso(d.createdAt),
          })),
        receipt: { id: f.receiptId, entries: await this.chains.entries(f.receiptId) },
      });
    }
    return {
      object: 'personal_data_export',
      generated_at: this.clock.now().toISOString(),
      jwks_url: `${this.config.baseUrl}/.well-known/jwks.json`,
      profile: {
        id: profile.id,
        name: profile.name,
        email: profile.email,
        phone: profile.phone,
        role: profile.role,
        created_at: iso(profile.createdAt),
        workspace: {
          id: profile.workspace.id,
          name: profile.workspace.name,
          kind: profile.workspace.kind,
          created_at: iso(profile.workspace.createdAt),
        },
      },
      sessions: sessions.map((s) => ({
        id: s.id,
        signed_in_at: iso(s.createdAt),
        expires_at: iso(s.expiresAt),
        current: s.id === person.sessionId,
      })),
      api_keys: apiKeys.map((k) => ({
        id: k.id,
        name: k.name,
        hint: k.hint,
        created_at: iso(k.createdAt),
        last_used_at: iso(k.lastUsedAt),
        revoked_at: iso(k.revokedAt),
      })),
      agents: agents.map((a) => ({
        id: a.id,
        name: a.name,
        role: a.role,
        credential_hint: a.credentialHint,
        created_at: iso(a.createdAt),
        disabled_at: iso(a.disabledAt),
      })),
      protocol_keys: protocolKeys.map((k) => ({
        id: k.id,
        name: k.name,
        role: k.role,
        agent_id: k.agentId,
        hint: k.hint,
        created_at: iso(k.createdAt),
        revoked_at: iso(k.revokedAt),
      })),
      mandates: mandates.map((x) => ({
        id: x.id,
        kind: x.kind,
        rail: x.rail,
        buyer_agent_id: x.buyerAgentId,
        description: x.description,
        per_payment_cap_paise: x.perPaymentCapPaise,
        payee_agent_ids: x.payeeAgentIds,
        valid_from: iso(x.validFrom),
        valid_until: iso(x.validUntil),
        status: x.status,
        authorised_by: x.authorisedBy,
        authorised_at: iso(x.authorisedAt),
        revoked_at: iso(x.revokedAt),
        created_at: iso(x.createdAt),
      })),
      approvals: approvals.map((a) => ({
        id: a.id,
        kind: a.kind,
        subject_id: a.subjectId,
        amount_paise: a.amountPaise,
        summary: a.summary,
        status: a.status,
        decided_by: a.decidedBy,
        decided_at: iso(a.decidedAt),
        note: a.note,
        created_at: iso(a.createdAt),
      })),
      payments,
      refunds: refunds.map((r) => ({
        id: r.id,
        intent_id: r.intentId,
        amount_paise: r.amountPaise,
        currency: r.currency,
        reason: r.reason,
        status: r.status,
        approval_id: r.approvalId,
        decided_by: r.decidedBy,
        created_at: iso(r.createdAt),
        succeeded_at: iso(r.succeededAt),
      })),
      forex_files: forex,
      checkout_sessions: held.sessions.map((r) => ({ id: r.key, ...r.values })),
      quotes: held.quotes.map((r) => ({ id: r.key, ...r.values })),
      webhook_endpoints: held.endpoints.map((r) => ({ id: r.key, ...r.values })),
      // Values you corrected: only how many we keep as keyed hashes (never the values).
      corrected_values: held.corrected,
      consents: consents.map(consentJson),
      activity: audit.map((e) => ({
        at: iso(e.at),
        actor_type: e.actor_type,
        actor_id: e.actor_id,
        action: e.action,
        subject_id: e.subject_id,
        data: e.data,
      })),
      // Per entry of the personal-data map (data-map.ts): what we hold, why, how long, and what
      // erasure does; `rows` counts this workspace's rows holding it where the owner has a store.
      data_map: held.map,
    };
  }

  consents(person: SignedInPerson): Promise<ConsentRecord[]> {
    return this.repo.consentsOf(person.workspaceId);
  }

  /** Name, email and phone, validated; the audit row names the fields changed, never the values. */
  async correct(person: SignedInPerson, input: CorrectionInput): Promise<void> {
    const name = input.name.trim();
    const email = input.email.trim().toLowerCase();
    const phone = input.phone.replace(/[\s-]/g, '');
    if (name.length < 1 || name.length > 100) {
      throw commonErrors.invalid('$.name', 'Your name must be 1 to 100 characters');
    }
    if (!EMAIL.test(email) || email.length > 200) {
      throw commonErrors.invalid('$.email', 'Enter an email address like name@example.com');
    }
    if (phone !== '' && !PHONE.test(phone)) {
      throw commonErrors.invalid(
        '$.phone',
        'Enter a 10-digit Indian mobile number (it may start with +91), or leave it empty',
      );
    }
    await this.tx.run(async (m) => {
      const before = await personalDataAccounts.profile(m, person.personId);
      if (!before) {
        throw commonErrors.notFound('person', person.personId);
      }
      if (email !== before.email && (await personalDataAccounts.emailTaken(m, email, before.id))) {
        throw commonErrors.invalid('$.email', 'Another account already uses this email');
      }
      const after = { name, email, phone: phone === '' ? null : phone };
      const fields = (['name', 'email', 'phone'] as const).filter((f) => before[f] !== after[f]);
      if (fields.length === 0) {
        return;
      }
      // What erasure needs to find copies of the old values later: their keyed hashes only.
      await recordOldIdentifiers(
        m,
        person.personId,
        this.oldIdentifiers(before, fields),
        this.clock.now(),
      );
      await personalDataAccounts.correct(m, person.personId, after);
      await this.audit.record(
        person.workspaceId,
        actorOf(person),
        'person.corrected',
        person.personId,
        {
          fields,
        },
      );
    });
  }

  /**
   * Erasure (DPDP Act s.12(3)): the person's name, email and phone are pseudonymised, the password
   * can never match again, every session ends. When nobody else is left in the workspace, it is
   * closed: API and protocol keys revoked, agents disabled, mandates revoked, stored API responses
   * deleted. The person's forex files lose names and notes (and the salt of the chain's name
   * digest). Payment, refund, mandate and forex records are kept under legal hold (LEGAL_HOLDS);
   * their signed chains hold no name, email or phone, so they verify unchanged.
   */
  async erase(person: SignedInPerson): Promise<ErasureOutcome> {
    const rights = this.rights;
    return this.tx.run(async (m) => {
      const now = this.clock.now();
      const ws = person.workspaceId;
      const actor = actorOf(person);
      const closing = (await personalDataAccounts.othersInWorkspace(m, ws, person.personId)) === 0;
      // One after another: a transaction's reads share its one connection.
      const intents = await intentsOfWorkspace(m, ws);
      const mandates = await mandatesOfWorkspace(m, ws);
      const files = await personalDataForex.filesOfPerson(m, person.personId);
      const refunds = await refundsOfIntents(
        m,
        intents.map((i) => i.id),
      );
      const counts: Record<string, number> = {
        payment_records: intents.length,
        refund_records: refunds.length,
        mandate_records: closing ? mandates.length : 0,
        forex_records: files.length,
      };
      const kept: KeptRecord[] = LEGAL_HOLDS.filter((h) => counts[h.kind] > 0).map((h) => ({
        kind: h.kind,
        count: counts[h.kind],
        rule: h.rule,
        periodYears: h.years(rights),
        uncertain: h.uncertain,
        holdUntil: holdUntil(now, h.years(rights)).toISOString(),
      }));
      const longest = kept.reduce<Date | null>(
        (max, k) => (!max || new Date(k.holdUntil) > max ? new Date(k.holdUntil) : max),
        null,
      );
      await personalDataForex.eraseOfPerson(m, person.personId, now);
      // Every column the personal-data map walks (data-map.ts): the person's identifiers, current
      // and corrected-away, found normalised in the rows of the workspace's scope (read before
      // the person's own fields are erased below).
      const profile = await personalDataAccounts.profile(m, person.personId);
      await eraseByMap(
        m,
        await this.scopeOf(
          m,
          person,
          intents.map((i) => i.id),
        ),
        await this.matcherOf(m, person.personId, profile),
      );
      if (closing) {
        // The lifecycle's closing cascade first (docs/architecture.md "Party lifecycle"): open
        // quotes, pay links, checkout sessions, charges and waiting payments end, sources locked
        // before the mandates and agents below (the lock order); counterparties are told.
        await this.closure.close(ws, now);
        for (const md of mandates.filter((x) => isRevocable(x.status))) {
          await this.mandates.revoke(ws, md.id, actor);
        }
        const keyIds = await personalDataProtocolKeys.revokeAll(m, ws, now);
        for (const id of keyIds) {
          await recordConsentWithdrawn(m, 'protocol_key', id, now);
        }
        const apiKeyIds = await personalDataAccounts.revokeApiKeys(m, ws, now);
        const agentIds = await personalDataAgents.disableAll(m, ws, now);
        const allKeys = (await personalDataProtocolKeys.all(m, ws)).map((k) => k.id);
        await deleteRecordsOfOwners(m, [...apiKeyIds, ...agentIds, ...allKeys, person.personId]);
        await personalDataAccounts.closeWorkspace(m, ws, now, longest ?? now);
        // In the revoking transaction, as every revocation (credential-revocations.ts).
        await this.revocations.revoked([...apiKeyIds, ...agentIds, ...keyIds]);
      }
      await deleteSessionsOf(m, person.personId);
      await personalDataAccounts.erasePerson(m, person.personId, now);
      await deleteOldIdentifiers(m, person.personId);
      await this.repo.insertErasure({
        id: newId('era'),
        workspaceId: ws,
        personId: person.personId,
        erasedAt: now,
        workspaceClosed: closing,
        kept,
        legalHoldUntil: longest,
      });
      await this.audit.record(ws, actor, 'person.erased', person.personId, {
        workspace_closed: closing,
        kept: kept.map((k) => ({ kind: k.kind, count: k.count, hold_until: k.holdUntil })),
      });
      return { erasedAt: now.toISOString(), workspaceClosed: closing, kept };
    });
  }

  /** The download's view of the map, and the records it adds to the older sections. */
  private async heldByMap(m: EntityManager, scope: PersonScope, personId: string) {
    const map = [];
    for (const t of personalTables()) {
      const cols = personalColumns(t);
      const store = ROW_STORES[t.table];
      const rows = store
        ? await store.read(
            m,
            scope,
            cols.map((c) => c.column),
          )
        : null;
      for (const c of cols) {
        map.push({
          table: t.table,
          column: c.column,
          json_paths: c.paths ?? null,
          category: c.category,
          category_label: CATEGORY_LABEL[c.category],
          purpose: c.purpose,
          retention: retentionText(c.retention),
          erasure: erasureText(c.erasure),
          in_download: t.download,
          rows: rows ? rows.filter((r) => r.values[c.column] !== null).length : null,
        });
      }
    }
    return {
      map,
      sessions: await storeOf('checkout_sessions').read(m, scope, [
        'status',
        'buyer',
        'fulfillment_details',
        'created_at',
      ]),
      quotes: await storeOf('quotes').read(m, scope, ['status', 'seller_name', 'line_items']),
      endpoints: await storeOf('webhook_endpoints').read(m, scope, ['url', 'description']),
      corrected: await oldIdentifierCounts(m, personId),
    };
  }

  private get identifierKey(): Buffer {
    return identifierKey(this.config.webhookSecretKey);
  }

  /** Keyed hashes of the values a correction replaces (docs/personal-data.md "Corrected values"). */
  private oldIdentifiers(
    before: { name: string; email: string; phone: string | null },
    fields: ('name' | 'email' | 'phone')[],
  ): OldIdentifier[] {
    const key = this.identifierKey;
    const out: OldIdentifier[] = [];
    if (fields.includes('name')) {
      const n = normaliseName(before.name);
      out.push({ kind: 'name', words: nameWords(n), digest: identifierDigest(key, 'name', n) });
    }
    if (fields.includes('email')) {
      const e = normaliseEmail(before.email);
      out.push({ kind: 'email', words: null, digest: identifierDigest(key, 'email', e) });
    }
    const phone = fields.includes('phone') && before.phone ? normalisePhone(before.phone) : null;
    if (phone) {
      out.push({ kind: 'phone', words: null, digest: identifierDigest(key, 'phone', phone) });
    }
    return out;
  }

  /** The rows erasure may look at (src/database/personal-rows.ts PersonScope). */
  private async scopeOf(
    m: EntityManager,
    person: SignedInPerson,
    intentIds: string[],
  ): Promise<PersonScope> {
    const ws = person.workspaceId;
    const agentIds = (await personalDataAgents.all(m, ws)).map((a) => a.id);
    const keyIds = (await personalDataProtocolKeys.all(m, ws)).map((k) => k.id);
    const apiKeyIds = (await personalDataAccounts.apiKeys(m, ws)).map((k) => k.id);
    const scope: PersonScope = {
      workspaceId: ws,
      personId: person.personId,
      agentIds,
      credentialIds: [person.personId, ...agentIds, ...keyIds, ...apiKeyIds],
      intentIds,
      sessionIds: [],
    };
    // Sessions the workspace's buyer agents hold a delegated token for, paid or not.
    const tokens = await storeOf('delegated_tokens').read(m, scope, ['checkout_session_id']);
    scope.sessionIds = [
      ...new Set(
        tokens
          .map((r) => r.values.checkout_session_id)
          .filter((x): x is string => typeof x === 'string'),
      ),
    ];
    return scope;
  }

  /** The person's identifiers: current values, and the hashes of corrected-away ones. */
  private async matcherOf(
    m: EntityManager,
    personId: string,
    profile: { name: string; email: string; phone: string | null } | null,
  ): Promise<IdentifierMatcher> {
    return new IdentifierMatcher(
      this.identifierKey,
      profile ?? {},
      await oldIdentifiersOf(m, personId),
    );
  }
}

export function consentJson(c: ConsentRecord) {
  return {
    id: c.id,
    kind: c.kind,
    subject_id: c.subjectId,
    person_id: c.personId,
    purpose: c.purpose,
    given_at: iso(c.givenAt),
    withdrawn_at: iso(c.withdrawnAt),
  };
}
