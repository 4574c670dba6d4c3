import { ApiProperty } from '@nestjs/swagger';

import { MANDATE_BILLING_CYCLES, type MandateBillingCycle } from '../../recurring/autopay-schedule';
import type { MandateKind, MandateRail, MandateStatus } from '../mandate.entity';

export class RecurringTermsResponse {
  @ApiProperty({ enum: MANDATE_BILLING_CYCLES }) billing_cycle: MandateBillingCycle;
  @ApiProperty({
    description:
      'paise: the maximum per debit in force (the person set it at authorisation, at most the proposal; an authorised amendment may change it). Same as per_payment_cap_paise',
  })
  max_per_debit_paise: number;
  @ApiProperty({ description: 'paise: the maximum per debit the buyer agent proposed' })
  proposed_max_per_debit_paise: number;
}

export class MandateResponse {
  @ApiProperty({ example: 'mdt_…' }) id: string;
  @ApiProperty({ enum: ['mandate'] }) object: 'mandate';
  @ApiProperty({ example: 'agt_…' }) buyer_agent_id: string;
  @ApiProperty({
    enum: ['standing', 'one_time', 'recurring'],
    description:
      'one_time: created by delegate_payment without a mandate_id, scoped to that allowance; recurring: UPI AutoPay, charged by sellers on a schedule',
  })
  kind: MandateKind;
  @ApiProperty({ enum: ['upi_reserve_pay', 'upi_otm', 'upi_autopay'] }) rail: MandateRail;
  @ApiProperty({
    nullable: true,
    type: RecurringTermsResponse,
    description: 'Recurring mandates only: the billing cycle (at most one successful debit each)',
  })
  recurring: RecurringTermsResponse | null;
  @ApiProperty({ description: 'paise' }) per_payment_cap_paise: number;
  @ApiProperty({ type: [String], nullable: true, description: 'null = any seller' })
  payee_agent_ids: string[] | null;
  @ApiProperty({ format: 'date-time' }) valid_from: string;
  @ApiProperty({ format: 'date-time' }) valid_until: string;
  @ApiProperty({
    enum: ['pending_authorisation', 'active', 'revoked', 'expired'],
    description: 'expired is derived once valid_until has passed',
  })
  status: MandateStatus;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({
    description: 'Page where a person of the workspace authorises (or declines) the mandate',
  })
  authorization_url: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) authorised_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
