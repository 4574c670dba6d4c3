import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ListingsController } from './listings.controller';
import { ListingsRepository } from './listings.repository';
import { ListingsService } from './listings.service';

/** Seller listings and the seller directory; exports ListingsService for checkout, quotes and MCP. */
@Module({
  imports: [AccountsModule],
  controllers: [ListingsController],
  providers: [ListingsService, ListingsRepository],
  exports: [ListingsService],
})
export class ListingsModule {}
