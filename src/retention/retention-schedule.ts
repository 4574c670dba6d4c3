import { AppConfig, DEFAULT_DATA_RIGHTS } from '../config/app.config';
import { DATA_MAP, personalColumns } from '../personal-data/data-map';

/** What the retention job deletes, one kind per line of the schedule. */
export type RetentionKind =
  | 'person_sessions'
  | 'idempotency_records'
  | 'seen_signatures'
  | 'forex_document_bytes'
  | 'abandoned_signups';

export interface RetentionRule {
  kind: RetentionKind;
  /** What is deleted, in words. */
  what: string;
  /** How long it is kept, in words (with the setting that changes it). */
  keptFor: string;
  /** Why that long: the purpose or the law. */
  basis: string;
  /** [U]: the period is our choice or a reading of the law not confirmed here; configure it. */
  uncertain: boolean;
  /** The personal columns this line deletes, from the personal-data map (`table.column`). */
  columns: string[];
}

/**
 * The personal columns whose retention (src/personal-data/data-map.ts) is this schedule line: the
 * map is where categories and retention are named; the schedule says when they go.
 */
export function retentionColumns(kind: RetentionKind): string[] {
  return DATA_MAP.flatMap((t) =>
    personalColumns(t)
      .filter((c) => 'schedule' in c.retention && c.retention.schedule === kind)
      .map((c) => `${t.table}.${c.column}`),
  );
}

/** Years after which a closed forex file's documents' bytes go (the KYC records' period). */
export function forexDocumentsYears(config: AppConfig): number {
  return (config.dataRights ?? DEFAULT_DATA_RIGHTS).kycRecordsYears;
}

/**
 * The retention schedule (docs/personal-data.md "Retention schedule" is this table in words).
 * RetentionJob enforces every line; the decision is always taken against the service Clock.
 * Records a law requires us to keep (payments, refunds, receipts, forex files and their metadata,
 * audit events) are not on it: they are kept, and erasure minimises them instead (src/personal-data).
 */
export function retentionSchedule(config: AppConfig): RetentionRule[] {
  return rules(config).map((r) => ({ ...r, columns: retentionColumns(r.kind) }));
}

function rules(config: AppConfig): Omit<RetentionRule, 'columns'>[] {
  return [
    {
      kind: 'person_sessions',
      what: 'Sign-in sessions (a hash of the cookie token, the person, when it started and ends)',
      keptFor: 'Until the session expires (12 hours after sign-in) or the person signs out',
      basis:
        'Needed only while the person is signed in (DPDP Act 2023 s.8(7): erase once the purpose is served)',
      uncertain: false,
    },
    {
      kind: 'idempotency_records',
      what: 'Idempotency records: a request body hash and the stored answer, which may echo personal fields',
      keptFor: `Until the record expires (IDEMPOTENCY_TTL_HOURS, ${config.idempotencyTtlHours} h after the request)`,
      basis: 'Needed only to answer a retried request the same way',
      uncertain: false,
    },
    {
      kind: 'seen_signatures',
      what: 'Hashes of signed requests already accepted, and of RFC 9421 signature nonces already used (replay protection)',
      keptFor: `Until its time window has passed (twice SIGNATURE_CLOCK_SKEW_S: ${2 * config.signatureSkewSeconds} s; a nonce: until its signature expires, at most 6 minutes)`,
      basis: 'Needed only while the same signature could be replayed',
      uncertain: false,
    },
    {
      kind: 'forex_document_bytes',
      what: "The bytes of a forex file's documents (passport, visa, ticket, letters); their kind, size and SHA-256 stay with the file",
      keptFor: `${forexDocumentsYears(config)} years after the file closes (booked, rejected or expired; LEGAL_HOLD_KYC_YEARS)`,
      basis:
        'KYC and forex transaction records: Prevention of Money-laundering Act and RBI directions, commonly cited as 5 years after the transaction',
      uncertain: true,
    },
    {
      kind: 'abandoned_signups',
      what: 'A sign-up nobody came back to: the workspace, its one person, their sessions and unused API keys, when the workspace holds nothing else (no agent, no key ever used, no other person)',
      keptFor: `${config.retention.abandonedSignupDays} days after the last sign-in (RETENTION_ABANDONED_SIGNUP_DAYS)`,
      basis:
        'No purpose left once the account is not used (DPDP Act 2023 s.8(7)); the period is our choice',
      uncertain: true,
    },
  ];
}

/** `at` minus whole calendar years (UTC), for periods stated in years. */
export function yearsBefore(at: Date, years: number): Date {
  const d = new Date(at.getTime());
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return d;
}
