import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';

import { GatewayModule } from '../gateway/gateway.module';
import { OpsModule } from '../ops/ops.module';
import { PaymentsModule } from '../payments/payments.module';
import { WebModule } from '../web/web.module';
import { SettlementRepository } from './settlement.repository';
import { SettlementReconcileProcessor } from './settlement-reconcile.processor';
import { SettlementReconcileProducer, SETTLEMENTS_QUEUE } from './settlement-reconcile.producer';
import { SettlementReconciler } from './settlement-reconciler';
import { SettlementsController } from './settlements.controller';
import { SettlementsService } from './settlements.service';
import { SettlementsOpsController } from './settlements-ops.controller';

/**
 * Settlements and reconciliation (docs/gateway.md "Settlements and reconciliation"): the report pull
 * (SettlementReconciler, repeatable job on queue `settlements`), GET /v1/pay/settlements for
 * sellers and /app/ops/settlements for operators. Imported in AppModule before
 * AppNotFoundModule, whose catch-all would otherwise answer /app/ops/….
 */
@Module({
  imports: [
    PaymentsModule,
    GatewayModule,
    WebModule,
    OpsModule,
    BullModule.registerQueue({ name: SETTLEMENTS_QUEUE }),
  ],
  controllers: [SettlementsController, SettlementsOpsController],
  providers: [
    SettlementReconciler,
    SettlementReconcileProcessor,
    SettlementReconcileProducer,
    SettlementsService,
    SettlementRepository,
  ],
  exports: [SettlementReconciler, SettlementsService],
})
export class SettlementsModule {}
