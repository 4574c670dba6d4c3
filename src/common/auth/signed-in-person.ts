import type { Request } from 'express';

/**
 * The signed-in person as every /app handler sees it (@CurrentPerson()). Never holds secrets of
 * the account. Set by the guards that check a session (PersonGuard, OperatorGuard); defined here,
 * beside `principalOf`, because CredentialRateLimitGuard counts person sessions too
 * (docs/architecture.md, `common/`).
 */
export interface SignedInPerson {
  personId: string;
  workspaceId: string;
  workspaceName: string;
  /** 'standard', or 'forex_partner' (the person is a dealer of that partner; src/forex). */
  workspaceKind: string;
  email: string;
  name: string;
  sessionId: string;
  /** Synchronizer token for this session's forms; render it with {{> csrf_field}}. */
  csrfToken: string;
}

type WithPerson = Request & { person?: SignedInPerson };

export function personOf(req: Request): SignedInPerson | undefined {
  return (req as WithPerson).person;
}

export function setPerson(req: Request, person: SignedInPerson): void {
  (req as WithPerson).person = person;
}
