import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';

import { PageQuery } from '../../common/pagination';
import { CURRENCY_CODES } from '../currencies';
import { FILE_STATUSES, FileStatus } from '../forex-file.state';
import { DOCUMENT_KINDS, FILE_KINDS, PRODUCTS, PURPOSE_CODES } from '../forex-rules';

/*
 * Request bodies of the forex routes. Sizes are bounded here; content rules (purpose per kind, PAN
 * format and holder type, dates, amounts, Aadhaar refusal) are checked by ForexService, so the MCP
 * tools that call it get the same answers.
 */

export class CreateForexFileDto {
  @ApiProperty({
    example: 'fxp_…',
    description: 'An AD Category-II partner (GET /v1/pay/forex/partners)',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  partner_id: string;

  @ApiProperty({ enum: FILE_KINDS })
  @IsString()
  @MaxLength(40)
  kind: string;

  @ApiProperty({
    enum: Object.keys(PURPOSE_CODES),
    description:
      "RBI purpose code, allowed per kind: travel S0301/S0303/S0304/S0305/S0306; remittance S0304/S0305/S1301/S1302; buy_back the trip's travel code; corporate_travel S0301",
  })
  @IsString()
  @MaxLength(10)
  purpose_code: string;

  @ApiProperty({
    description:
      "Email of the person the file is for, in the agent's workspace: they confirm the declaration in the app",
    example: 'asha@example.in',
  })
  @IsString()
  @MaxLength(320)
  person_email: string;

  @ApiProperty({ description: 'Traveller or remitter, as on the passport', maxLength: 200 })
  @IsString()
  @MaxLength(200)
  traveller_name: string;

  @ApiPropertyOptional({ description: 'Remittance: who receives it', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  beneficiary_name?: string;

  @ApiPropertyOptional({
    description: 'corporate_travel: the company paying (required there)',
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  company_name?: string;

  @ApiProperty({
    description: 'ISO 3166-1 alpha-2 (beneficiary country for a remittance)',
    example: 'AE',
  })
  @IsString()
  @MaxLength(2)
  destination_country: string;

  @ApiPropertyOptional({
    description:
      'YYYY-MM-DD; required for travel and corporate_travel, at most 60 days ahead (IST)',
    example: '2026-05-10',
  })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  departure_date?: string;

  @ApiPropertyOptional({
    description: 'YYYY-MM-DD, on or after departure_date',
    example: '2026-05-24',
  })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  return_date?: string;

  @ApiProperty({
    description:
      "PAN (individual P for travel, remittance, buy_back; the company's for corporate_travel). Stored only as a keyed hash and XXXXX1234X; never returned.",
    example: 'ABCPE1234F',
  })
  @IsString()
  @MaxLength(100)
  pan: string;

  @ApiPropertyOptional({
    description: 'S0305 only: education funded by a loan from a financial institution (TCS nil)',
  })
  @IsOptional()
  @IsBoolean()
  education_loan_funded?: boolean;

  @ApiPropertyOptional({ description: 'Free text for the dealer', maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  notes?: string;
}

export class ForexQuoteLineDto {
  @ApiProperty({ enum: CURRENCY_CODES, example: 'USD' })
  @IsString()
  @MaxLength(3)
  currency: string;

  @ApiProperty({
    description:
      'Foreign amount as a decimal string with at most the currency\'s minor units (USD 2, JPY 0): "1500.50"',
    example: '1500.50',
  })
  @IsString()
  @MaxLength(40)
  amount: string;

  @ApiProperty({
    enum: PRODUCTS,
    description: 'notes and card for trips and buy-backs; remittance for LRS remittances',
  })
  @IsString()
  @MaxLength(20)
  product: string;
}

export class CreateForexQuoteDto {
  @ApiProperty({ example: 'fxo_…' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  file_id: string;

  @ApiProperty({ type: [ForexQuoteLineDto], minItems: 1, maxItems: 10 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => ForexQuoteLineDto)
  lines: ForexQuoteLineDto[];
}

export class UploadForexDocumentDto {
  @ApiProperty({ enum: DOCUMENT_KINDS, description: 'Aadhaar is never accepted' })
  @IsString()
  @MaxLength(50)
  kind: string;

  @ApiProperty({
    enum: ['application/pdf', 'image/jpeg', 'image/png'],
    description: 'Must match the content (magic bytes)',
  })
  @IsString()
  @MaxLength(100)
  content_type: string;

  @ApiProperty({
    description:
      'The file as base64 (standard alphabet, one line, padding optional); at most 5 MB = 5,000,000 bytes once decoded (MB = 10^6 bytes)',
  })
  @IsString()
  content_base64: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  filename?: string;
}

export class ListForexFilesQuery extends PageQuery {
  @ApiPropertyOptional({ enum: FILE_STATUSES })
  @IsOptional()
  @IsIn(FILE_STATUSES)
  status?: FileStatus;
}
