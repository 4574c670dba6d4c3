import { DynamicModule, Global, Module, Type } from '@nestjs/common';

import { Sql } from '../database/sql';
import { Tx } from '../database/tx';
import { AuditLog } from './audit';
import { AcpGuard } from './auth/acp.guard';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { CredentialResolver } from './auth/credential.resolver';
import { CredentialCache } from './auth/credential-cache';
import { CREDENTIAL_LOOKUP, CredentialLookup } from './auth/credential-lookup';
import { Clock } from './clock';
import { CredentialRevocations } from './credentials/credential-revocations';
import { RevocableCredentials } from './credentials/revocable-credentials';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyCleanup } from './idempotency/idempotency-cleanup';
import { IdempotencyRecordRepository } from './idempotency/idempotency-record.repository';
import { RequestSignatureVerifier } from './signing/request-signature.verifier';
import { SeenSignatureRepository } from './signing/seen-signature.repository';

/** What every module may inject. */
const SHARED = [
  Tx,
  Sql,
  Clock,
  AuditLog,
  RevocableCredentials,
  CredentialResolver,
  CredentialCache,
  CredentialRevocations,
  RequestSignatureVerifier,
  BearerAuthGuard,
  AcpGuard,
  IdempotencyInterceptor,
  // Exported because the guards and the interceptor above are built in each feature module that
  // uses them (docs/architecture.md "Table owners").
  SeenSignatureRepository,
  IdempotencyRecordRepository,
];

/** Cross-cutting pieces every module uses: transactions, clock, auth, signatures, idempotency. */
@Global()
@Module({
  providers: [...SHARED, IdempotencyCleanup],
  exports: SHARED,
})
export class CommonModule {
  /**
   * CommonModule with the credential store CredentialResolver reads (the CredentialLookup port):
   * the composition root (src/app.module.ts) names the feature-side implementation, so common
   * imports no feature (docs/architecture.md, `common/`).
   */
  static forRoot(credentialLookup: Type<CredentialLookup>): DynamicModule {
    return {
      module: CommonModule,
      providers: [{ provide: CREDENTIAL_LOOKUP, useClass: credentialLookup }],
    };
  }
}
