import { Injectable } from '@nestjs/common';

/**
 * Who may see the operator pages of this module (/app/ops/settlements). The operator role
 * (an `operator` person in an `operator` workspace) is defined by the operators' module; until
 * that module is part of this build, no person is an operator here and the page answers 404 to
 * everyone. Binding OPERATOR_CHECK to the operators' own check is the only change needed then.
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
