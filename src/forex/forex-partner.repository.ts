import { Injectable } from '@nestjs/common';

import { setWorkspaceKind } from '../accounts/accounts.repository';
import { Cursor, newestFirst } from '../common/pagination';
import { Tx } from '../database/tx';
import { ForexPartner } from './entities/forex-partner.entity';
import { ForexRate } from './entities/forex-rate.entity';

/** The only SQL on forex_partners and forex_rates (a partner workspace's kind is set through accounts). */
@Injectable()
export class ForexPartnerRepository {
  constructor(private readonly tx: Tx) {}

  list(limit: number, after: Cursor | null): Promise<ForexPartner[]> {
    return newestFirst(
      this.tx.manager.createQueryBuilder(ForexPartner, 'p'),
      'p',
      limit,
      after,
    ).getMany();
  }

  find(id: string): Promise<ForexPartner | null> {
    return this.tx.manager.findOneBy(ForexPartner, { id });
  }

  findByWorkspace(workspaceId: string): Promise<ForexPartner | null> {
    return this.tx.manager.findOneBy(ForexPartner, { workspaceId });
  }

  findByLicence(licenceNumber: string): Promise<ForexPartner | null> {
    return this.tx.manager.findOneBy(ForexPartner, { licenceNumber });
  }

  async insert(partner: ForexPartner): Promise<void> {
    await this.tx.manager.insert(ForexPartner, partner);
  }

  async markPartnerWorkspace(workspaceId: string): Promise<void> {
    await setWorkspaceKind(this.tx.manager, workspaceId, 'forex_partner');
  }

  rates(partnerId: string): Promise<ForexRate[]> {
    return this.tx.manager.find(ForexRate, { where: { partnerId }, order: { currency: 'ASC' } });
  }

  /** Inserts or replaces a currency's rates. */
  async upsertRate(rate: ForexRate): Promise<void> {
    await this.tx.manager.upsert(ForexRate, rate, ['partnerId', 'currency']);
  }

  /** Inserts only currencies the partner has no rate for yet (seeding never overwrites a dealer). */
  async insertRateIfAbsent(rate: ForexRate): Promise<void> {
    await this.tx.manager
      .createQueryBuilder()
      .insert()
      .into(ForexRate)
      .values(rate)
      .orIgnore()
      .execute();
  }
}
