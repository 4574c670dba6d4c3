import { Inject, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';

import { AccountsModule } from './accounts/accounts.module';
import { ApprovalsModule } from './approvals/approvals.module';
import { BreachesModule } from './breaches/breaches.module';
import { ChainsModule } from './chains/chains.module';
import { CheckoutModule } from './checkout/checkout.module';
import { CommonModule } from './common/common.module';
import { httpPipeline } from './common/http/http-pipeline';
import { loggerOptions } from './common/http/logging';
import { I18nModule } from './common/i18n/i18n.module';
import { QueuesModule } from './common/queues/queues.module';
import { RateLimitModule } from './common/rate-limit/rate-limit';
import { SweeperModule } from './common/sweeper/sweeper.module';
import { APP_CONFIG, AppConfig } from './config/app.config';
import { ConfigModule } from './config/config.module';
import { ConsentModule } from './consent/consent.module';
import { dataSourceOptions } from './database/data-source-options';
import { DelegatePaymentModule } from './delegate-payment/delegate-payment.module';
import { DocumentsModule } from './documents/documents.module';
import { ForexModule } from './forex/forex.module';
import { GatewayModule } from './gateway/gateway.module';
import { HealthModule } from './health/health.module';
import { IntentsModule } from './intents/intents.module';
import { MandatesModule } from './mandates/mandates.module';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { OpsModule } from './ops/ops.module';
import { OrdersModule } from './orders/orders.module';
import { PaymentsModule } from './payments/payments.module';
import { PersonalDataModule } from './personal-data/personal-data.module';
import { ProtocolKeysModule } from './protocol-keys/protocol-keys.module';
import { StoredCredentialLookup } from './protocol-keys/stored-credential-lookup';
import { PublicPayModule } from './public-pay/public-pay.module';
import { QuotesModule } from './quotes/quotes.module';
import { ReceiptsModule } from './receipts/receipts.module';
import { RecurringModule } from './recurring/recurring.module';
import { RefundsModule } from './refunds/refunds.module';
import { RetentionModule } from './retention/retention.module';
import { SandboxModule } from './sandbox/sandbox.module';
import { SellerModule } from './seller/seller.module';
import { SettlementsModule } from './settlements/settlements.module';
import { UcpModule } from './ucp/ucp.module';
import { AppNotFoundModule, AppPagesModule } from './web/app-pages.module';
import { WebModule } from './web/web.module';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({
  imports: [
    ConfigModule,
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loggerOptions(config),
    }),
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config.databaseUrl, config.databasePoolMax),
        retryAttempts: 0,
      }),
    }),
    QueuesModule,
    SweeperModule,
    RateLimitModule,
    CommonModule.forRoot(StoredCredentialLookup),
    MetricsModule,
    HealthModule,
    // The purchase's routes first: Express tries an app's routes in the order they were
    // registered (Nest registers them module by module, in this order), so a create or a
    // complete is matched after ~30 routes and a delegate_payment after ~60, instead of 100–134
    // (bench/README.md "Routes tried per request"). No path of theirs overlaps another module's.
    CheckoutModule,
    DelegatePaymentModule,
    AccountsModule,
    ProtocolKeysModule,
    WebModule,
    SandboxModule,
    ChainsModule,
    ApprovalsModule,
    ReceiptsModule,
    PaymentsModule,
    WebhooksModule,
    DocumentsModule,
    MandatesModule,
    ConsentModule,
    PersonalDataModule,
    McpModule,
    QuotesModule,
    IntentsModule,
    RefundsModule,
    SellerModule,
    UcpModule,
    OrdersModule,
    OpsModule,
    ForexModule,
    GatewayModule,
    SettlementsModule,
    RetentionModule,
    BreachesModule,
    PublicPayModule,
    RecurringModule,
    AppPagesModule,
    I18nModule,
    // Last: its catch-all answers unknown /app paths with an HTML 404 after every real route.
    AppNotFoundModule,
  ],
})
export class AppModule implements NestModule {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(httpPipeline(this.config.bodyLimit)).forRoutes('*');
  }
}
