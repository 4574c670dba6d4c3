import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { PageQuery } from '../../common/pagination';
import { CATEGORY_PATTERN } from './put-listing.dto';

export class OfferView {
  @ApiProperty({ example: 'sku_tea_1kg' }) sku: string;
  @ApiProperty({ example: 'Assam tea 1 kg' }) name: string;
  @ApiProperty({ example: 45000 }) unit_paise: number;
  @ApiProperty({ example: 'food.tea' }) category: string;
}

export class ListingResponse {
  @ApiProperty({ enum: ['listing'] }) object: 'listing';
  @ApiProperty({ example: 'agt_…' }) agent_id: string;
  @ApiProperty({ example: 'Chai Co' }) seller_name: string;
  @ApiProperty() listed: boolean;
  @ApiProperty({ type: [OfferView], description: 'Active offers, by SKU' }) offers: OfferView[];
  @ApiProperty() updated_at: string;
}

export class SellerView {
  @ApiProperty({ example: 'agt_…' }) agent_id: string;
  @ApiProperty({ example: 'Chai Co' }) name: string;
  @ApiProperty({ type: [OfferView], description: 'Active offers matching the filters, by SKU' })
  offers: OfferView[];
}

export class SellerPage {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [SellerView] }) data: SellerView[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, type: String }) next_cursor: string | null;
}

export class SellersQuery extends PageQuery {
  @ApiPropertyOptional({
    example: 'food',
    description: 'Category or any sub-category (food matches food.tea)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(CATEGORY_PATTERN, { message: 'must be a dotted lowercase category such as food.tea' })
  category?: string;

  @ApiPropertyOptional({
    maxLength: 100,
    description: 'Case-insensitive search in seller names, offer names and SKUs',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  q?: string;
}
