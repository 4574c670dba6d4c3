import { Injectable } from '@nestjs/common';

import { isOperatorPerson } from '../accounts/accounts.repository';
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
    return isOperatorPerson(this.tx.manager, personId);
  }
}
