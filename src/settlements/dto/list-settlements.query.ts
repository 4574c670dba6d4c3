import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

import { PageQuery } from '../../common/pagination';

export const SETTLEMENT_FILTERS = ['all', 'mismatched', 'amount', 'missing'] as const;
export type SettlementFilter = (typeof SETTLEMENT_FILTERS)[number];

export class ListSettlementsQuery extends PageQuery {
  @ApiPropertyOptional({
    enum: SETTLEMENT_FILTERS,
    default: 'all',
    description: 'mismatched: only lines with a mismatch; amount / missing: only that kind',
  })
  @IsOptional()
  @IsIn(SETTLEMENT_FILTERS)
  mismatch?: SettlementFilter;
}
