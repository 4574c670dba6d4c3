import { Injectable } from '@nestjs/common';

import { AccountsService } from '../accounts/accounts.service';
import type { ApiKeyResponse } from '../accounts/dto/accounts.dto';
import { commonErrors } from '../common/errors/app-error';
import { IssuedSession, PersonSessionService } from './person-session.service';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface SignupInput {
  workspaceName: string;
  name: string;
  email: string;
  password: string;
  previousToken?: string;
}

/** Sign-up from the app: a workspace, its first person and first API key, then a session. */
@Injectable()
export class AppSignupService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: PersonSessionService,
  ) {}

  async signUp(input: SignupInput): Promise<{ session: IssuedSession; apiKey: ApiKeyResponse }> {
    const workspaceName = input.workspaceName.trim();
    const name = input.name.trim();
    const email = input.email.trim().toLowerCase();
    if (workspaceName.length < 1 || workspaceName.length > 100) {
      throw commonErrors.invalid('$.workspace_name', 'Workspace name must be 1 to 100 characters');
    }
    if (name.length < 1 || name.length > 100) {
      throw commonErrors.invalid('$.name', 'Your name must be 1 to 100 characters');
    }
    if (!EMAIL.test(email)) {
      throw commonErrors.invalid('$.email', 'Enter an email address like name@example.com');
    }
    if (input.password.length < 10) {
      throw commonErrors.invalid('$.password', 'Password must be at least 10 characters');
    }
    const { person, apiKey } = await this.accounts.signUp({
      workspaceName,
      name,
      email,
      password: input.password,
    });
    await this.sessions.signOut(input.previousToken);
    const session = await this.sessions.startSession(person.id);
    return { session, apiKey };
  }
}
