import { Injectable } from '@nestjs/common';

import { AccountsService } from '../accounts/accounts.service';
import { Clock } from '../common/clock';
import { hashPassword, sha256Hex, verifyPassword } from '../common/crypto/secrets';
import { newId, randomToken } from '../common/ids';
import { csrfTokenFor, newBrowserToken } from './csrf';
import { PersonSessionRepository } from './person-session.repository';
import type { SignedInPerson } from './signed-in-person';
import { webErrors } from './web.errors';

export const SESSION_TTL_MS = 12 * 3600_000;

/** A new session: `token` goes into the svc_session cookie and nowhere else. */
export interface IssuedSession {
  token: string;
  expiresAt: Date;
  person: SignedInPerson;
}

/**
 * Sign-in sessions of people in the app.
 *
 * Storage: person_sessions.token_hash = SHA-256 of the cookie token (a 256-bit random value, so
 * a fast hash is enough). CSRF: the token is HMAC-SHA256(session token, 'csrf') and is recomputed
 * from the cookie on each request; csrf_secret_hash stores SHA-256 of that derived token only so
 * the NOT NULL column holds nothing usable (it is never read).
 */
@Injectable()
export class PersonSessionService {
  /** Hash to verify against when the email is unknown, so both paths cost one scrypt. */
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly sessions: PersonSessionRepository,
    private readonly accounts: AccountsService,
    private readonly clock: Clock,
  ) {}

  /**
   * Sessions are also ended when presented after expiry; the retention job (src/retention,
   * 'person_sessions' in its schedule) removes the rest, a batch at a time.
   */
  deleteExpiredSessions(now: Date, limit: number): Promise<number> {
    return this.sessions.deleteExpired(now, limit);
  }

  /**
   * Email + password → a fresh session. Always runs one scrypt verification, for unknown emails
   * too, so response time does not reveal which emails have accounts. A session presented with
   * the sign-in (previousToken) is ended: a sign-in never reuses an old token.
   */
  async signIn(input: {
    email: string;
    password: string;
    previousToken?: string;
  }): Promise<IssuedSession> {
    const person = await this.accounts.findPersonByEmail(input.email);
    const stored = person?.passwordHash ?? (await this.dummyPasswordHash());
    const ok = await verifyPassword(input.password, stored);
    if (!person || !ok) {
      throw webErrors.invalidCredentials();
    }
    await this.signOut(input.previousToken);
    return this.startSession(person.id);
  }

  /** Creates a session for a person who has just proven who they are (sign-in, sign-up). */
  async startSession(personId: string): Promise<IssuedSession> {
    const token = newBrowserToken();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
    await this.accounts.recordSignIn(personId, now);
    await this.sessions.insert({
      id: newId('psess'),
      personId,
      tokenHash: sha256Hex(token),
      csrfSecretHash: sha256Hex(csrfTokenFor(token)),
      expiresAt,
    });
    const person = await this.resolve(token);
    if (!person) {
      throw new Error(`session for ${personId} vanished right after insert`);
    }
    return { token, expiresAt, person };
  }

  /** The signed-in person for a cookie token, or null (absent, unknown or expired). */
  async resolve(token: string | undefined): Promise<SignedInPerson | null> {
    if (!token) {
      return null;
    }
    const row = await this.sessions.findByTokenHash(sha256Hex(token));
    if (!row) {
      return null;
    }
    if (row.expiresAt.getTime() <= this.clock.now().getTime()) {
      await this.sessions.deleteById(row.sessionId);
      return null;
    }
    return {
      personId: row.personId,
      workspaceId: row.workspaceId,
      workspaceName: row.workspaceName,
      workspaceKind: row.workspaceKind,
      email: row.email,
      name: row.name,
      sessionId: row.sessionId,
      csrfToken: csrfTokenFor(token),
    };
  }

  /** Deletes the session row, so the cookie stops working even if the browser keeps it. */
  async signOut(token: string | undefined): Promise<void> {
    if (token) {
      await this.sessions.deleteByTokenHash(sha256Hex(token));
    }
  }

  private dummyPasswordHash(): Promise<string> {
    this.dummyHash ??= hashPassword(randomToken(24));
    return this.dummyHash;
  }
}
