import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { SellerController } from './seller.controller';
import { SellerRepository } from './seller.repository';
import { SellerService } from './seller.service';

/** Seller listings and the seller directory; exports SellerService for checkout, quotes and MCP. */
@Module({
  imports: [AccountsModule],
  controllers: [SellerController],
  providers: [SellerService, SellerRepository],
  exports: [SellerService],
})
export class SellerModule {}
