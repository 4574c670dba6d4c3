import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';

import { PageQuery } from '../../common/pagination';
import type { MandateStatus } from '../mandate.entity';

export class ListMandatesQuery extends PageQuery {
  @ApiPropertyOptional({ example: 'agt_…' })
  @IsOptional()
  @IsString()
  @Matches(/^agt_[A-Za-z0-9]+$/)
  buyer_agent_id?: string;

  @ApiPropertyOptional({
    enum: ['pending_authorisation', 'active', 'revoked', 'expired'],
    description: 'expired includes mandates whose valid_until has passed',
  })
  @IsOptional()
  @IsIn(['pending_authorisation', 'active', 'revoked', 'expired'])
  status?: MandateStatus;
}
