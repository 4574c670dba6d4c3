import { Injectable } from '@nestjs/common';

import { Tx } from '../database/tx';

/**
 * Who is an operator: a person with role `operator` in a workspace of kind `operator` (migration
 * 1763700001700-Operators). Both, so that neither a promoted customer nor an ordinary member of
 * the operators' workspace gets the operator tools.
 */
@Injectable()
export class OperatorAccess {
  constructor(private readonly tx: Tx) {}

  async isOperator(personId: string): Promise<boolean> {
    const rows = await this.tx.manager.query<{ ok: boolean }[]>(
      `SELECT (p.role = 'operator' AND w.kind = 'operator') AS ok
         FROM persons p JOIN workspaces w ON w.id = p.workspace_id
        WHERE p.id = $1`,
      [personId],
    );
    return rows[0]?.ok === true;
  }
}
