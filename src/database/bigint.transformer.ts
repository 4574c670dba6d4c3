import { ValueTransformer } from 'typeorm';

import { paiseFromSql } from '../common/money';

/** Paise live in bigint columns; this maps them to number through paiseFromSql (src/common/money.ts). */
export const paise: ValueTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | null): number | null =>
    v === null || v === undefined ? null : paiseFromSql(v),
};
