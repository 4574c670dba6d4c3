import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { PageQuery } from '../../common/pagination';

export class ListEventsQuery extends PageQuery {
  @ApiPropertyOptional({ example: 'intent.settled' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  type?: string;

  @ApiPropertyOptional({ example: 'agt_…' })
  @IsOptional()
  @IsString()
  @Matches(/^agt_[A-Za-z0-9]+$/)
  agent_id?: string;
}
