import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class CreateRefundDto {
  @ApiPropertyOptional({
    description:
      "Paise to refund; default = everything not yet refunded or waiting for approval. At least the rail's smallest refund (the intent's refund_minimum_paise: 100 on the payment gateway by default, 1 on the sandbox)",
    minimum: 1,
    example: 15000,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  amount_paise?: number;

  @ApiPropertyOptional({ maxLength: 200, example: 'Item out of stock' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  reason?: string;
}
