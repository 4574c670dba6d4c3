import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ChainsModule } from '../chains/chains.module';
import { MandatesModule } from '../mandates/mandates.module';
import { WebModule } from '../web/web.module';
import { PersonalDataRepository } from './personal-data.repository';
import { PersonalDataService } from './personal-data.service';
import { YourDataController } from './your-data.controller';
import { YourDataPages } from './your-data.pages';

/**
 * A person's data rights (DPDP Act 2023; docs/personal-data.md): the "Your data" page (see,
 * download, correct, erase), consent records, and who to complain to. Owns consent_records and
 * personal_data_erasures.
 */
@Module({
  imports: [AccountsModule, WebModule, ChainsModule, MandatesModule],
  controllers: [YourDataController],
  providers: [PersonalDataService, PersonalDataRepository, YourDataPages],
})
export class PersonalDataModule {}
