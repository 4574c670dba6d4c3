import { Injectable } from '@nestjs/common';

import { AccountsService } from '../accounts/accounts.service';
import type { AuditActor } from '../common/audit';
import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination';
import { Tx } from '../database/tx';
import { findAadhaar } from './aadhaar';
import { currencyInfo, FOREX_CURRENCIES } from './currencies';
import type { ForexPartnerResponse, ForexRatesResponse } from './dto/forex-responses';
import { ForexPartner } from './entities/forex-partner.entity';
import { ForexRate } from './entities/forex-rate.entity';
import { forexErrors } from './forex.errors';
import { toCurrencyRate, toPartnerResponse } from './forex.mapper';
import { rateFromFeed } from './forex-amounts';
import { ForexPartnerRepository } from './forex-partner.repository';

/**
 * The sandbox rates table, as the market quotes it (rupees per unit; JPY per 100 yen), converted
 * on the way in like any feed. A dealer edits the partner's copy on the dealer desk.
 */
export const SANDBOX_RATE_FEED: Record<
  string,
  { notes: [buy: string, sell: string]; card: [buy: string, sell: string] }
> = {
  USD: { notes: ['82.6500', '85.1500'], card: ['83.1000', '83.9312'] },
  EUR: { notes: ['89.2000', '92.6000'], card: ['89.9000', '91.4500'] },
  GBP: { notes: ['104.5000', '108.9000'], card: ['105.4000', '107.2500'] },
  AED: { notes: ['22.2000', '23.4000'], card: ['22.5000', '23.0500'] },
  SGD: { notes: ['61.4000', '64.0000'], card: ['62.0000', '63.2500'] },
  JPY: { notes: ['54.1000', '57.6500'], card: ['55.0000', '56.7312'] },
  THB: { notes: ['2.3000', '2.5500'], card: ['2.3800', '2.4700'] },
};

export interface RatesInput {
  notesBuy: string;
  notesSell: string;
  cardBuy: string;
  cardSell: string;
}

export interface RegisterPartnerInput {
  name: string;
  licenceNumber: string;
  serviceFeePaise: number;
  dealer: { email: string; name: string; password: string };
}

/**
 * AD Category-II partners and their rates. A partner is registered by the operator (the sandbox
 * seeds one); its workspace is marked 'forex_partner' and every person in it is a dealer.
 */
@Injectable()
export class ForexPartnersService {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly partners: ForexPartnerRepository,
    private readonly accounts: AccountsService,
  ) {}

  async list(limit = 20, startingAfter?: string): Promise<Page<ForexPartnerResponse>> {
    const rows = await this.partners.list(limit, decodeCursor(startingAfter));
    return toPage(rows, limit, toPartnerResponse);
  }

  async get(id: string, param?: string): Promise<ForexPartner> {
    const partner = await this.partners.find(id);
    if (!partner) {
      throw forexErrors.partnerNotFound(id, param);
    }
    return partner;
  }

  /** The partner whose workspace this is (its people are the dealers), or null. */
  forWorkspace(workspaceId: string): Promise<ForexPartner | null> {
    return this.partners.findByWorkspace(workspaceId);
  }

  async rates(partnerId: string): Promise<ForexRatesResponse> {
    await this.get(partnerId);
    return {
      object: 'forex_rates',
      partner_id: partnerId,
      unit: 'integer ten-thousandths of a rupee per ONE unit (839312 = ₹83.9312)',
      rates: (await this.partners.rates(partnerId)).map(toCurrencyRate),
    };
  }

  /** The partner's rates keyed by currency, for pricing. */
  async rateMap(partnerId: string): Promise<Map<string, ForexRate>> {
    return new Map((await this.partners.rates(partnerId)).map((r) => [r.currency, r]));
  }

  /** Registers a partner with its own workspace and first dealer, and seeds the rates table. */
  async register(
    input: RegisterPartnerInput,
    actor: AuditActor,
  ): Promise<{ partner: ForexPartner; dealerPersonId: string }> {
    return this.tx.run(async () => {
      const { workspace, person, apiKey } = await this.accounts.signUp({
        workspaceName: input.name,
        email: input.dealer.email,
        name: input.dealer.name,
        password: input.dealer.password,
      });
      // A partner works on the dealer desk, not through the API: no key is left live.
      await this.accounts.revokeApiKey(workspace.id, apiKey.id, actor);
      await this.partners.markPartnerWorkspace(workspace.id);
      const partner = Object.assign(new ForexPartner(), {
        id: newId('fxp'),
        workspaceId: workspace.id,
        name: input.name,
        licenceNumber: input.licenceNumber,
        category: 'ad_category_ii' as const,
        serviceFeePaise: input.serviceFeePaise,
        createdAt: this.clock.now(),
      });
      await this.partners.insert(partner);
      await this.seedRates(partner.id);
      await this.audit.record(workspace.id, actor, 'forex.partner_registered', partner.id, {
        licence_number: input.licenceNumber,
      });
      return { partner, dealerPersonId: person.id };
    });
  }

  findByLicence(licenceNumber: string): Promise<ForexPartner | null> {
    return this.partners.findByLicence(licenceNumber);
  }

  /** Adds the sandbox table's rates the partner does not have yet; a dealer's edits stay. */
  async seedRates(partnerId: string): Promise<void> {
    const now = this.clock.now();
    for (const [currency, feed] of Object.entries(SANDBOX_RATE_FEED)) {
      const per = currencyInfo(currency)!.feedQuotedPer;
      const at = (t: string) => rateFromFeed(t, per)!;
      await this.partners.insertRateIfAbsent(
        Object.assign(new ForexRate(), {
          partnerId,
          currency,
          notesBuy: at(feed.notes[0]),
          notesSell: at(feed.notes[1]),
          cardBuy: at(feed.card[0]),
          cardSell: at(feed.card[1]),
          setAt: now,
          setBy: 'seed',
        }),
      );
    }
  }

  /**
   * A dealer sets one currency's rates, entered as the market quotes them (JPY per 100 yen) and
   * stored per one unit. Buy may not exceed sell.
   */
  async setRates(
    dealer: { personId: string; workspaceId: string },
    currency: string,
    input: RatesInput,
  ): Promise<ForexRate> {
    const info = FOREX_CURRENCIES.find((c) => c.code === currency);
    const hit = findAadhaar(input);
    if (hit) {
      throw forexErrors.aadhaarRefused(hit);
    }
    return this.tx.run(async () => {
      const partner = await this.partners.findByWorkspace(dealer.workspaceId);
      if (!partner) {
        throw forexErrors.partnerNotFound(dealer.workspaceId);
      }
      if (!info) {
        throw forexErrors.invalid('currency', 'unsupported_currency', `No rates for ${currency}`);
      }
      const parse = (text: string, field: string) => {
        const rate = rateFromFeed(text, info.feedQuotedPer);
        if (rate === null) {
          throw forexErrors.invalid(
            field,
            'invalid_rate',
            `${field}: enter rupees per ${info.feedQuotedPer === 100 ? '100 units' : 'unit'} as a decimal with at most 6 decimals, e.g. 83.9312`,
          );
        }
        return rate;
      };
      const rate = Object.assign(new ForexRate(), {
        partnerId: partner.id,
        currency,
        notesBuy: parse(input.notesBuy, 'notes_buy'),
        notesSell: parse(input.notesSell, 'notes_sell'),
        cardBuy: parse(input.cardBuy, 'card_buy'),
        cardSell: parse(input.cardSell, 'card_sell'),
        setAt: this.clock.now(),
        setBy: dealer.personId,
      });
      if (rate.notesBuy > rate.notesSell || rate.cardBuy > rate.cardSell) {
        throw forexErrors.invalid(
          'buy',
          'invalid_rate',
          'A buy rate may not be above the sell rate of the same product',
        );
      }
      await this.partners.upsertRate(rate);
      await this.audit.record(
        dealer.workspaceId,
        { type: 'person', id: dealer.personId },
        'forex.rates_set',
        partner.id,
        {
          currency,
          notes_buy: rate.notesBuy,
          notes_sell: rate.notesSell,
          card_buy: rate.cardBuy,
          card_sell: rate.cardSell,
        },
      );
      return rate;
    });
  }
}
