import { Injectable } from '@nestjs/common';

/**
 * Who may see the operator pages of this module (/app/ops/settlements). SettlementsModule binds
 * OPERATOR_CHECK to the operators' own check (OperatorAccess in src/ops: an `operator` person in
 * an `operator` workspace, docs/operations.md "Operating it"), so the queue dashboard and this page answer to
 * the same people. NoOperators is the fail-closed binding for a build without the operator tools.
 */
export interface OperatorCheck {
  isOperator(personId: string): Promise<boolean>;
}

export const OPERATOR_CHECK = Symbol('OPERATOR_CHECK');

/** The fail-closed default: nobody is an operator. */
@Injectable()
export class NoOperators implements OperatorCheck {
  isOperator(personId: string): Promise<boolean> {
    void personId;
    return Promise.resolve(false);
  }
}
