import { Injectable } from '@nestjs/common';

import { findOrCreateOperatorWorkspace, insertPerson } from '../accounts/accounts.repository';
import { AccountsService } from '../accounts/accounts.service';
import { AuditActor, AuditLog } from '../common/audit';
import { hashPassword } from '../common/crypto/secrets';
import { newId, randomToken } from '../common/ids';
import { Tx } from '../database/tx';
import { OperatorAccess } from './operator-access';

export interface IssuedOperator {
  workspaceId: string;
  personId: string;
  email: string;
  /** Shown once: stored only as a scrypt hash. */
  password: string;
}

/**
 * Operator accounts: an operator person in the operator workspace (OperatorAccess). Used by the
 * sandbox (`npm run sandbox` prints the operator's sign-in). Each call issues a fresh password
 * and ends the operator's sessions, since the old one cannot be shown again.
 */
@Injectable()
export class OperatorsService {
  constructor(
    private readonly tx: Tx,
    private readonly accounts: AccountsService,
    private readonly access: OperatorAccess,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Creates the operator `email` (and the operator workspace `workspaceName` when there is none
   * of that name), or finds them again and resets the password. Refuses an email that belongs to
   * anyone who is not an operator: a customer is never turned into an operator here.
   */
  async ensureOperator(
    input: { email: string; name: string; workspaceName: string },
    actor: AuditActor,
  ): Promise<IssuedOperator> {
    const password = `ops-${randomToken(24)}`;
    return this.tx.run(async (m) => {
      const email = input.email.trim().toLowerCase();
      const existing = await this.accounts.findPersonByEmail(email);
      if (existing) {
        if (!(await this.access.isOperator(existing.id))) {
          throw new Error(
            `${email} belongs to a person who is not an operator; choose another email`,
          );
        }
        await this.accounts.setPassword(existing.id, password, actor);
        return { workspaceId: existing.workspaceId, personId: existing.id, email, password };
      }
      const { workspace, created } = await findOrCreateOperatorWorkspace(m, input.workspaceName);
      if (created) {
        await this.audit.record(workspace.id, actor, 'workspace.created', workspace.id, {
          kind: 'operator',
        });
      }
      const person = {
        id: newId('per'),
        workspaceId: workspace.id,
        email,
        name: input.name,
        passwordHash: await hashPassword(password),
        role: 'operator' as const,
      };
      await insertPerson(m, person);
      await this.audit.record(workspace.id, actor, 'operator.created', person.id);
      return { workspaceId: workspace.id, personId: person.id, email, password };
    });
  }
}
