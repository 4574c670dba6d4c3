import { param, sql } from '../database/fragment';
import { queryFragment } from '../database/sql';
import type { Tx } from '../database/tx';
import { gatewayParts } from '../rails/gateway/gateway.repository';
import type { Mandate } from './mandate.entity';
import { mandateParts } from './mandate.repository';

/**
 * Where a mandate's gateway registration stands, for amendments (docs/mandates.md "Amendments
 * while the gateway registration is pending"). On the gateway rail a mandate is registered right
 * after its authorisation commits (src/gateway/mandate-registration.ts): the AutoPay token (or
 * Reserve Pay block) is made for the cap and end the mandate has then, so until that call ends no
 * amendment may change the cap or validity, or our maximum could end above the token's. The
 * registration writes the mandate's `gateway_registration_ended_at` when it ends (registered or
 * failed); both sides decide under the mandate's row lock (docs/architecture.md "Lock order":
 * the mandate first), so neither reads the other's half-done state. When that registration failed,
 * the mandate's first debit registers it (src/rails/gateway/gateway-rail.ts): that one writes
 * `gateway_registration_started_at` before it reads the terms, and its end after, so the same
 * window holds around it.
 */

/**
 * How long after its authorisation a registration counts as pending when it never wrote its end
 * (the process stopped mid-call): longer than its gateway calls can take (a few GATEWAY_TIMEOUT_MS
 * each). After that the mandate's first debit registers it with the terms then in force.
 */
export const REGISTRATION_PENDING_MAX_MS = 120_000;

/** Retry-After on a refusal while a registration is pending: a registration takes a few seconds. */
export const REGISTRATION_RETRY_AFTER_S = 2;

export interface RegistrationState {
  /** When the registration after authorisation ended; null while it runs (or never ran). */
  endedAt: Date | null;
  /** When a registration made by a debit last started; null when none did. */
  startedAt: Date | null;
  /** The mandate has an AutoPay token at the gateway (whatever its status). */
  hasToken: boolean;
}

/** The mandate's registration state; call with the mandate's row lock held. */
export async function registrationStateOf(tx: Tx, mandateId: string): Promise<RegistrationState> {
  const id = param(mandateId);
  const [row] = await queryFragment<
    { ended_at: Date | null; started_at: Date | null; has_token: boolean }[]
  >(
    tx.manager,
    sql`SELECT ${mandateParts.registrationEndedAt(id)} AS ended_at,
               ${mandateParts.registrationStartedAt(id)} AS started_at,
               ${gatewayParts.hasMandateToken(id)} AS has_token`,
  );
  return {
    endedAt: row?.ended_at ?? null,
    startedAt: row?.started_at ?? null,
    hasToken: row?.has_token ?? false,
  };
}

/**
 * Records that a registration made by a debit starts, in its own committed transaction before the
 * registration reads the mandate's terms: an amendment committed first is what gets registered,
 * one asked after is refused while it runs.
 */
export async function markRegistrationStarted(tx: Tx, mandateId: string, at: Date): Promise<void> {
  await queryFragment(
    tx.manager,
    mandateParts.markRegistrationStarted(param(mandateId), param(at)),
  );
}

/** Records that the registration after authorisation ended (registered or failed). */
export async function markRegistrationEnded(tx: Tx, mandateId: string, at: Date): Promise<void> {
  await queryFragment(tx.manager, mandateParts.markRegistrationEnded(param(mandateId), param(at)));
}

/**
 * Seconds to wait when the mandate's gateway registration is still pending, else null. Pending:
 * the rail registers mandates, and a registration began (the mandate's authorisation, or a
 * debit's registration start) less than REGISTRATION_PENDING_MAX_MS ago and has not written its
 * end since.
 */
export function registrationPendingRetryAfter(
  m: Pick<Mandate, 'authorisedAt'>,
  state: RegistrationState,
  now: Date,
  railRegisters: boolean,
): number | null {
  if (!railRegisters) {
    return null;
  }
  const pendingSince = (began: Date | null): boolean =>
    began !== null &&
    (state.endedAt === null || state.endedAt.getTime() < began.getTime()) &&
    now.getTime() - began.getTime() < REGISTRATION_PENDING_MAX_MS;
  return pendingSince(m.authorisedAt) || pendingSince(state.startedAt)
    ? REGISTRATION_RETRY_AFTER_S
    : null;
}
