import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

import { PageQuery } from '../../common/pagination';
import type { IntentStatus } from '../../payments/entities/payment-intent.entity';

export const INTENT_STATUSES: IntentStatus[] = [
  'requires_approval',
  'processing',
  'settled',
  'declined',
  'failed',
];
export type IntentSide = 'seller' | 'buyer';

export class ListIntentsQuery extends PageQuery {
  @ApiProperty({
    enum: ['seller', 'buyer'],
    description: 'seller: payments to the calling agent; buyer: payments by it',
  })
  @IsIn(['seller', 'buyer'])
  side: IntentSide;

  @ApiPropertyOptional({ enum: INTENT_STATUSES })
  @IsOptional()
  @IsIn(INTENT_STATUSES)
  status?: IntentStatus;
}
