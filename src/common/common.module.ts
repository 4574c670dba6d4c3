import { Global, Module } from '@nestjs/common';

import { Sql } from '../database/sql';
import { Tx } from '../database/tx';
import { AuditLog } from './audit';
import { AcpGuard } from './auth/acp.guard';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { CredentialResolver } from './auth/credential.resolver';
import { CredentialCache } from './auth/credential-cache';
import { Clock } from './clock';
import { CredentialRevocations } from './credentials/credential-revocations';
import { RevocableCredentials } from './credentials/revocable-credentials';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyCleanup } from './idempotency/idempotency-cleanup';
import { RequestSignatureVerifier } from './signing/request-signature.verifier';

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
];

/** Cross-cutting pieces every module uses: transactions, clock, auth, signatures, idempotency. */
@Global()
@Module({
  providers: [...SHARED, IdempotencyCleanup],
  exports: SHARED,
})
export class CommonModule {}
